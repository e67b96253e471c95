/**
 * Static cohorts' members and the persons lookup a copy needs: a person's uuid here is made
 * from its row id (PostHog derives person uuids per project, so they differ between projects
 * as they do here), members are added by person uuid, at most 1,000 a call, and listed back
 * with their distinct ids.
 */
import type { SandboxRequest, SandboxResponse } from '../../router.js';
import { json } from '../../router.js';
import { validationError } from '../api-errors.js';
import { limitOffset, offsetPage } from '../api-pagination.js';
import type { KindContext } from './config-kind.js';

export const MAX_PERSONS_PER_CALL = 1000;

export function personUuid(personId: number): string {
  return `0192d000-0000-7000-8000-${personId.toString(16).padStart(12, '0')}`;
}

function personIdOf(uuid: unknown): number | undefined {
  const match = typeof uuid === 'string' ? /^0192d000-0000-7000-8000-([0-9a-f]{12})$/.exec(uuid) : null;
  return match ? Number.parseInt(match[1]!, 16) : undefined;
}

/** Adds the persons named by uuid; unknown uuids are skipped as PostHog skips them. Returns how many were added. */
export function addStaticMembers(context: KindContext, cohortId: number, uuids: unknown[]): number | SandboxResponse {
  if (uuids.length > MAX_PERSONS_PER_CALL) return validationError('max_length', `Ensure this field has no more than ${MAX_PERSONS_PER_CALL} elements.`, 'person_ids');
  const exists = context.store.db.prepare('SELECT 1 FROM persons WHERE id = ? AND team_id = ?');
  const insert = context.store.db.prepare('INSERT OR IGNORE INTO static_cohort_people (cohort_id, person_id) VALUES (?, ?)');
  let added = 0;
  for (const uuid of uuids) {
    const id = personIdOf(uuid);
    if (id === undefined || exists.get(id, context.teamId) === undefined) continue;
    added += insert.run(cohortId, id).changes;
  }
  return added;
}

export function staticMemberCount(context: KindContext, cohortId: number): number {
  return (context.store.db.prepare('SELECT count(*) AS n FROM static_cohort_people WHERE cohort_id = ?').get(cohortId) as { n: number }).n;
}

interface PersonRow {
  id: number;
  properties: string;
}

function personJson(context: KindContext, row: PersonRow): Record<string, unknown> {
  const ids = context.store.db.prepare('SELECT distinct_id FROM person_distinct_ids WHERE team_id = ? AND person_id = ? ORDER BY distinct_id').all(context.teamId, row.id) as Array<{
    distinct_id: string;
  }>;
  return { id: row.id, uuid: personUuid(row.id), distinct_ids: ids.map((r) => r.distinct_id), properties: JSON.parse(row.properties) as unknown };
}

/** `GET cohorts/:id/persons/`: the members, 100 a page. */
export function cohortPersons(request: SandboxRequest, context: KindContext, cohortId: number): SandboxResponse {
  const { limit, offset } = limitOffset(request.url);
  const count = staticMemberCount(context, cohortId);
  const rows = context.store.db
    .prepare('SELECT p.id, p.properties FROM static_cohort_people s JOIN persons p ON p.id = s.person_id WHERE s.cohort_id = ? ORDER BY p.id LIMIT ? OFFSET ?')
    .all(cohortId, limit, offset) as PersonRow[];
  return json(
    200,
    offsetPage(
      request,
      rows.map((row) => personJson(context, row)),
      count,
      limit,
      offset,
    ),
  );
}

/** `GET persons/?distinct_id=`: the person holding that distinct id, as a one-row page (or none). */
export function personsByDistinctId(request: SandboxRequest, context: KindContext): SandboxResponse {
  const distinctId = request.url.searchParams.get('distinct_id');
  const rows =
    distinctId === null
      ? (context.store.db.prepare('SELECT id, properties FROM persons WHERE team_id = ? ORDER BY id LIMIT 100').all(context.teamId) as PersonRow[])
      : (context.store.db
          .prepare('SELECT p.id, p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.team_id = ? AND d.distinct_id = ?')
          .all(context.teamId, distinctId) as PersonRow[]);
  return json(200, { next: null, previous: null, results: rows.map((row) => personJson(context, row)) });
}
