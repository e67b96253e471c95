/**
 * Reads a PostHog project's persons (with their distinct ids) and groups through its query
 * API into users and groups files, each table (or key range) counted, then paged by its key;
 * the group types from its REST API. A file is complete only when each table gave the rows it counted.
 */
import { open } from 'node:fs/promises';
import { z } from 'zod';
import { askJson, notAnAnswer, type QueryCallOptions, type QueryState } from './query-range.js';
import { readTable, type TablePages } from './posthog-table-pages.js';
import { countQuery, cursorOf, groupLine, groupsOf, pageQuery, personLines } from './posthog-people-queries.js';
import { readDistinctIds, readPersonsOf } from './posthog-person-ranges.js';
import type { DownloadResult } from './range-download.js';

export type PeopleRead = { type: 'read'; lines: number; rows: number; expected: number; recounted: number } | DownloadResult;

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

/**
 * The persons as a users file: every live distinct id with its person, by key ranges (halved
 * where PostHog finds one too slow), then the persons of those ids, batch by batch. Both must
 * give what they counted: a person gone between the two reads leaves the file incomplete.
 */
export function readPersons(o: QueryCallOptions, state: QueryState, spoolPath: string, notice: (text: string) => void = () => undefined): Promise<PeopleRead> {
  return toFile(spoolPath, async (write) => {
    const links = await readDistinctIds(o, state, notice);
    if (!links.ok) return links.result;
    let lines = 0;
    const persons = await readPersonsOf(o, state, [...links.owners.keys()].sort(), async (row) => {
      for (const line of personLines(row, links.owners.get(String(row[0])) ?? [], state.timezone ?? 'UTC')) {
        await write(line);
        lines++;
      }
    });
    if (!persons.ok) return persons.result;
    const { rows, expected, recounted } = links.totals;
    return { type: 'read', lines, rows: rows + persons.rows, expected: expected + persons.asked, recounted: recounted + persons.asked };
  });
}

/** One group type's groups as a groups file. */
export function readGroups(o: QueryCallOptions, state: QueryState, index: number, spoolPath: string): Promise<PeopleRead> {
  return toFile(spoolPath, async (write) => {
    const table = groupsOf(index);
    const pages: TablePages = { count: countQuery(table), page: (cursor, limit) => pageQuery(table, cursor, limit), cursorOf: (row) => cursorOf(table, row) };
    const groups = await readTable(o, state, pages, (row) => write(groupLine(row, state.timezone ?? 'UTC')));
    if (!groups.ok) return groups.result;
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
