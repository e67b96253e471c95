/**
 * SQL insights and dashboards name their insight variables by id (`variables: {<id>: {variableId,
 * code_name, value}}`), and ids differ between projects. Variables are matched by code name (the
 * name HogQL uses, `{variables.code_name}`): one the destination lacks is made there first, and
 * every `variables` map is rewritten to the destination's ids. Matching by name needs no record,
 * so a rerun finds what an earlier run made.
 */
import { z } from 'zod';
import type { ManagementApi } from '../management/management-api.js';
import { collectAll } from '../management/pagination.js';

type Json = Record<string, unknown>;

const variableSchema = z.looseObject({ id: z.string(), name: z.string(), code_name: z.string().nullable().optional(), type: z.string().optional() });
type Variable = z.infer<typeof variableSchema>;
const pageSchema = z.object({ next: z.string().nullable().optional().default(null), results: z.array(variableSchema) });

const WRITABLE = ['name', 'type', 'default_value', 'values'] as const;

/**
 * The project's variables; none on an instance too old to have them (404), or whose endpoint
 * takes no personal API key (older versions answer 403 without naming a scope).
 */
async function list(api: ManagementApi): Promise<Variable[] | undefined> {
  const { reply, call } = await api.project.send({ method: 'GET', resource: 'insight_variables/' });
  if (reply.status === 404) return [];
  if (reply.status === 403 && !/missing required scope/i.test(reply.body.toString('utf8'))) return undefined;
  const first = api.client.parse(reply, call, pageSchema);
  return collectAll(api.client, { schema: pageSchema, first: async () => first });
}

export interface VariableMatch {
  /** Source variable id to destination id. */
  ids: Map<string, string>;
  notes: string[];
}

/** Finds or makes each source variable in the destination; nothing is made in a dry run. */
export async function matchVariables(source: ManagementApi, dest: ManagementApi, dryRun: boolean): Promise<VariableMatch> {
  const match: VariableMatch = { ids: new Map(), notes: [] };
  const wanted = await list(source);
  if (wanted === undefined) return { ...match, notes: ['insight variables are not copied: the source answers their list only to a logged-in user, not to a personal API key'] };
  if (wanted.length === 0) return match;
  const have = await list(dest);
  if (have === undefined) return { ...match, notes: ['insight variables are not copied: the destination answers their list only to a logged-in user, not to a personal API key'] };
  for (const variable of wanted) {
    const found = have.find((d) => d.code_name === variable.code_name);
    if (found !== undefined) match.ids.set(variable.id, found.id);
    else if (dryRun) {
      match.ids.set(variable.id, `(new ${variable.code_name})`);
      match.notes.push(`insight variable "${variable.name}" would be created`);
    } else {
      const body = Object.fromEntries(WRITABLE.filter((field) => variable[field] !== undefined).map((field) => [field, variable[field]]));
      const { reply, call } = await dest.project.send({ method: 'POST', resource: 'insight_variables/', body, what: `insight variable "${variable.name}"` });
      if (reply.status !== 201 && reply.status !== 200) {
        match.notes.push(`insight variable "${variable.name}" could not be created: ${dest.client.failure(reply, call).message}`);
        continue;
      }
      match.ids.set(variable.id, dest.client.parse(reply, call, variableSchema).id);
      match.notes.push(`insight variable "${variable.name}" created`);
    }
  }
  return match;
}

function isRecord(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A `variables` map: every entry an object naming its variable. */
function isVariablesMap(value: unknown): value is Record<string, Json> {
  return isRecord(value) && Object.values(value).length > 0 && Object.values(value).every((entry) => isRecord(entry) && typeof entry.variableId === 'string');
}

/** Rewrites every `variables` map inside `value` to destination ids; returns the source ids with no match. */
export function remapVariables(value: unknown, ids: ReadonlyMap<string, string>, unmatched: Set<string> = new Set()): { value: unknown; unmatched: Set<string> } {
  if (Array.isArray(value)) return { value: value.map((entry) => remapVariables(entry, ids, unmatched).value), unmatched };
  if (!isRecord(value)) return { value, unmatched };
  const out: Json = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key !== 'variables' || !isVariablesMap(entry)) {
      out[key] = remapVariables(entry, ids, unmatched).value;
      continue;
    }
    const rewritten: Json = {};
    for (const [id, variable] of Object.entries(entry)) {
      const to = ids.get(String(variable.variableId));
      if (to === undefined) unmatched.add(String(variable.variableId));
      rewritten[to ?? id] = { ...variable, variableId: to ?? variable.variableId };
    }
    out[key] = rewritten;
  }
  return { value: out, unmatched };
}
