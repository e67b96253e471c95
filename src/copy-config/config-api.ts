/**
 * The configuration endpoints of one project, over the management API: lists followed page by
 * page, single reads, and writes whose refusals come back as values (a 402 of a plan, a 400 of
 * a serializer), so one object's refusal never stops the others.
 */
import { z } from 'zod';
import { isNoAnswer, noAnswerError } from '../management/management-client.js';
import type { ManagementApi } from '../management/management-api.js';
import { collectAll } from '../management/pagination.js';
import { KIND_NOUN, KIND_RESOURCE, type CopyKind } from './config-kinds.js';

export type ConfigObject = Record<string, unknown> & { id: number };

const objectSchema = z.looseObject({ id: z.number().int() }) as unknown as z.ZodType<ConfigObject>;
const pageSchema = z.object({ next: z.string().nullable(), results: z.array(objectSchema) });
const personSchema = z.looseObject({ uuid: z.string(), distinct_ids: z.array(z.string()) });
const personsPageSchema = z.object({ next: z.string().nullable().optional().default(null), results: z.array(personSchema) });

/** A 403 for a scope the key lacks (every write of the kind would fail alike), not for one object. */
function namesScope(text: string): boolean {
  return /missing required scope/i.test(text);
}

export type WriteResult = { ok: true; object: ConfigObject } | { ok: false; status: number; message: string };

/** PostHog's limit on persons added to a static cohort in one call. */
export const PERSONS_PER_CALL = 1000;

export class ConfigApi {
  constructor(readonly api: ManagementApi) {}

  list(kind: CopyKind): Promise<ConfigObject[]> {
    const resource = `${KIND_RESOURCE[kind]}/`;
    return collectAll(this.api.client, { schema: pageSchema, first: () => this.api.project.json({ method: 'GET', resource, query: { limit: 100 } }, pageSchema) });
  }

  get(kind: CopyKind, id: number): Promise<ConfigObject> {
    return this.api.project.json({ method: 'GET', resource: `${KIND_RESOURCE[kind]}/${id}/`, what: `${KIND_NOUN[kind]} ${id}` }, objectSchema);
  }

  /** The object, or undefined when the project no longer has it (404). */
  async find(kind: CopyKind, id: number): Promise<ConfigObject | undefined> {
    const { reply, call } = await this.api.project.send({ method: 'GET', resource: `${KIND_RESOURCE[kind]}/${id}/`, what: `${KIND_NOUN[kind]} ${id}` });
    if (reply.status === 404) return undefined;
    return this.api.client.parse(reply, call, objectSchema);
  }

  create(kind: CopyKind, body: Record<string, unknown>): Promise<WriteResult> {
    return this.write({ method: 'POST', resource: `${KIND_RESOURCE[kind]}/`, body });
  }

  update(kind: CopyKind, id: number, body: Record<string, unknown>): Promise<WriteResult> {
    return this.write({ method: 'PATCH', resource: `${KIND_RESOURCE[kind]}/${id}/`, body, what: `${KIND_NOUN[kind]} ${id}` });
  }

  private async write(call: { method: 'POST' | 'PATCH'; resource: string; body: Record<string, unknown>; what?: string }, answersObject = true): Promise<WriteResult> {
    const answer = await this.api.project.trySend(call);
    if (isNoAnswer(answer.reply)) throw noAnswerError(answer.reply);
    const reply = answer.reply;
    if (reply.status >= 200 && reply.status < 300) return { ok: true, object: answersObject ? this.api.client.parse(reply, answer.call, objectSchema) : { id: 0 } };
    // Credentials, a missing scope and throttling end the run as for any management call; the
    // rest is this object's, a 403 on this one object (a dashboard the key may not edit) included.
    if (reply.status === 401 || reply.status === 429 || (reply.status === 403 && namesScope(reply.body.toString('utf8')))) throw this.api.client.failure(reply, answer.call);
    return { ok: false, status: reply.status, message: this.api.client.failure(reply, answer.call).message };
  }

  /** The distinct ids of a static cohort's members (the first of each person's). */
  async cohortMembers(cohortId: number): Promise<string[]> {
    const persons = await collectAll(this.api.client, {
      schema: personsPageSchema,
      first: () => this.api.project.json({ method: 'GET', resource: `cohorts/${cohortId}/persons/`, query: { limit: 100 } }, personsPageSchema),
    });
    return persons.map((person) => person.distinct_ids[0]).filter((id): id is string => id !== undefined);
  }

  /** The uuid of the person holding `distinctId` in this project, or undefined. */
  async personUuid(distinctId: string): Promise<string | undefined> {
    const page = await this.api.project.json({ method: 'GET', resource: 'persons/', query: { distinct_id: distinctId } }, personsPageSchema);
    return page.results.find((person) => person.distinct_ids.includes(distinctId))?.uuid;
  }

  async addPersons(cohortId: number, uuids: readonly string[]): Promise<WriteResult> {
    for (let at = 0; at < uuids.length; at += PERSONS_PER_CALL) {
      const result = await this.write({ method: 'PATCH', resource: `cohorts/${cohortId}/add_persons_to_static_cohort/`, body: { person_ids: uuids.slice(at, at + PERSONS_PER_CALL) } }, false);
      if (!result.ok) return result;
    }
    return { ok: true, object: { id: cohortId } };
  }
}
