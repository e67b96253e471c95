/**
 * A PostHog project's live distinct ids, read from its raw table one key range at a time: a
 * range is counted, paged and counted again, and a range PostHog finds too slow (512/504) is
 * halved and read as two, down to a floor; then the persons of those ids in batches, a batch
 * too slow halved likewise.
 */
import { halves, type KeyRange } from './key-range.js';
import { distinctIdCountQuery, distinctIdPageQuery, personsByIdQuery } from './posthog-people-queries.js';
import { readTable } from './posthog-table-pages.js';
import { askQuery, type QueryCallOptions, type QueryState } from './query-range.js';
import type { DownloadResult } from './range-download.js';

/**
 * A range halved this many times and still too slow fails the read. Halving is blind to the
 * keys (some seven halvings a character), so ids sharing a long prefix take many.
 */
export const MAX_SPLIT_DEPTH = 96;
/** Person ids asked for in one query at most (each is some 40 characters of query text). */
export const PERSON_BATCH = 1000;

export interface LinkTotals {
  rows: number;
  expected: number;
  recounted: number;
}

type Owners = { ok: true; owners: Map<string, string[]>; totals: LinkTotals } | { ok: false; result: DownloadResult };

function isTooSlow(result: DownloadResult): boolean {
  return result.type === 'answered' && result.verdict.type === 'too-slow';
}

function describe(range: KeyRange): string {
  return `${range.from === undefined ? 'the start' : JSON.stringify(range.from)} to ${range.to === undefined ? 'the end' : JSON.stringify(range.to)}`;
}

/** Every live distinct id, by person; the rows read against the counts of the ranges they came from. */
export async function readDistinctIds(o: QueryCallOptions, state: QueryState, notice: (text: string) => void): Promise<Owners> {
  const owners = new Map<string, string[]>();
  const totals: LinkTotals = { rows: 0, expected: 0, recounted: 0 };
  const todo: Array<KeyRange & { depth: number }> = [{ depth: 0 }];
  while (todo.length > 0) {
    const range = todo.shift()!;
    const pairs: Array<[string, string]> = [];
    const read = await readTable(
      o,
      state,
      { count: distinctIdCountQuery(range), page: (cursor, limit) => distinctIdPageQuery(range, cursor?.[0] as string | undefined, limit), cursorOf: (row) => [row[0]] },
      ([distinctId, personId]) => {
        pairs.push([String(distinctId), String(personId)]);
      },
    );
    if (!read.ok) {
      const cut = isTooSlow(read.result) && range.depth < MAX_SPLIT_DEPTH ? halves(range) : undefined;
      if (cut === undefined) return read;
      notice(`PostHog found the distinct ids from ${describe(range)} too slow to read at once; reading them in two halves`);
      todo.unshift(...cut.map((half) => ({ ...half, depth: range.depth + 1 })));
      continue;
    }
    // A range's ids are kept only once it is read whole.
    for (const [distinctId, personId] of pairs) owners.set(personId, [...(owners.get(personId) ?? []), distinctId]);
    totals.rows += read.rows;
    totals.expected += read.expected;
    totals.recounted += read.recounted;
  }
  return { ok: true, owners, totals };
}

/** The persons of `ids` (sorted), batch by batch, to `onRow`: how many were asked for and how many came. */
export async function readPersonsOf(
  o: QueryCallOptions,
  state: QueryState,
  ids: readonly string[],
  onRow: (row: unknown[]) => Promise<void>,
): Promise<{ ok: true; rows: number; asked: number } | { ok: false; result: DownloadResult }> {
  let batch = Math.max(1, Math.min(state.pageRows, PERSON_BATCH));
  let rows = 0;
  for (let at = 0; at < ids.length; ) {
    const chunk = ids.slice(at, at + batch);
    const asked = await askQuery(o, personsByIdQuery(chunk));
    if (!asked.ok) {
      if (!isTooSlow(asked.result) || batch === 1) return asked;
      batch = Math.ceil(batch / 2);
      continue;
    }
    for (const row of asked.answer.results) await onRow(row);
    rows += asked.answer.results.length;
    at += chunk.length;
  }
  return { ok: true, rows, asked: ids.length };
}
