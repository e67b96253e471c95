/**
 * Reads a PostHog project's persons (with their distinct ids) and groups through its query
 * API into users and groups files, each table counted, then paged by its key; the group
 * types from its REST API. A file is complete only when each table gave the rows it counted.
 */
import { open } from 'node:fs/promises';
import { z } from 'zod';
import { askCount, askJson, askQuery, notAnAnswer, type QueryCallOptions, type QueryState } from './query-range.js';
import { countQuery, cursorOf, DISTINCT_IDS, groupLine, groupsOf, pageQuery, PERSONS, personLines, type PeopleTable } from './posthog-people-queries.js';
import { rowCapOf } from './posthog-queries.js';
import type { DownloadResult } from './range-download.js';

export type PeopleRead = { type: 'read'; lines: number; rows: number; expected: number; recounted: number } | DownloadResult;

/** Every row of a table, page after page, to `onRow`; how many came, and the counts before and after them. */
async function readTable(
  o: QueryCallOptions,
  state: QueryState,
  t: PeopleTable,
  onRow: (row: unknown[]) => Promise<void>,
): Promise<{ rows: number; expected: number; recounted: number } | DownloadResult> {
  const counted = await askCount(o, countQuery(t), state);
  if (!counted.ok) return counted.result;
  let rows = 0;
  let cursor: unknown[] | undefined;
  while (rows < counted.count || cursor === undefined) {
    const limit = state.pageRows;
    const asked = await askQuery(o, pageQuery(t, cursor, limit));
    if (!asked.ok) return asked.result;
    const page = asked.answer.results;
    for (const row of page) await onRow(row);
    rows += page.length;
    state.pageRows = rowCapOf(limit, asked.answer.hogql, page.length, rows < counted.count);
    if (page.length === 0 || page.length < state.pageRows) break;
    cursor = cursorOf(t, page[page.length - 1]!);
  }
  // Counted again after the last page: a row added behind the cursor is in no page.
  const recounted = await askCount(o, countQuery(t), state);
  if (!recounted.ok) return recounted.result;
  return { rows, expected: counted.count, recounted: recounted.count };
}

async function toFile(path: string, write: (line: (text: string) => Promise<void>) => Promise<PeopleRead>): Promise<PeopleRead> {
  const file = await open(path, 'w');
  try {
    return await write(async (text) => {
      await file.write(text);
    });
  } finally {
    await file.close();
  }
}

/** The persons as a users file: the distinct ids first (grouped by person), then the persons. */
export function readPersons(o: QueryCallOptions, state: QueryState, spoolPath: string): Promise<PeopleRead> {
  return toFile(spoolPath, async (write) => {
    const ids = new Map<string, string[]>();
    const links = await readTable(o, state, DISTINCT_IDS, async ([personId, distinctId]) => {
      const key = String(personId);
      ids.set(key, [...(ids.get(key) ?? []), String(distinctId)]);
    });
    if (!('rows' in links)) return links;
    let lines = 0;
    const persons = await readTable(o, state, PERSONS, async (row) => {
      for (const line of personLines(row, ids.get(String(row[0])) ?? [], state.timezone ?? 'UTC')) {
        await write(line);
        lines++;
      }
    });
    if (!('rows' in persons)) return persons;
    // Both tables must give what they counted.
    return { type: 'read', lines, rows: persons.rows + links.rows, expected: persons.expected + links.expected, recounted: persons.recounted + links.recounted };
  });
}

/** One group type's groups as a groups file. */
export function readGroups(o: QueryCallOptions, state: QueryState, index: number, spoolPath: string): Promise<PeopleRead> {
  return toFile(spoolPath, async (write) => {
    const groups = await readTable(o, state, groupsOf(index), (row) => write(groupLine(row, state.timezone ?? 'UTC')));
    if (!('rows' in groups)) return groups;
    return { type: 'read', lines: groups.rows, rows: groups.rows, expected: groups.expected, recounted: groups.recounted };
  });
}

const groupTypesSchema = z.array(z.looseObject({ group_type: z.string(), group_type_index: z.number().int() }));

/** The project's group types (`GET /api/projects/:id/groups_types/`), by index. */
export async function readGroupTypes(o: QueryCallOptions, url: string): Promise<{ ok: true; types: Array<{ name: string; index: number }> } | { ok: false; result: DownloadResult }> {
  const asked = await askJson(o, 'GET', url);
  if (!asked.ok) return asked;
  const parsed = groupTypesSchema.safeParse(asked.json);
  if (!parsed.success) return { ok: false, result: notAnAnswer(200, 'not a list of group types') };
  return { ok: true, types: parsed.data.map((t) => ({ name: t.group_type, index: t.group_type_index })) };
}
