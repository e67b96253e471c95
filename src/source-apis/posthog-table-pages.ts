/**
 * One table (or key range of one) of a PostHog project read through HogQL: counted, paged by
 * its key after a cursor (never OFFSET), and counted again after the last page.
 */
import { rowCapOf } from './posthog-queries.js';
import { askCount, askQuery, type QueryCallOptions, type QueryState } from './query-range.js';
import type { DownloadResult } from './range-download.js';

export interface TablePages {
  count: string;
  page(cursor: unknown[] | undefined, limit: number): string;
  cursorOf(row: readonly unknown[]): unknown[];
}

export type TableRead = { ok: true; rows: number; expected: number; recounted: number } | { ok: false; result: DownloadResult };

/** Every row of a table, page after page, to `onRow`; how many came, and the counts before and after them. */
export async function readTable(o: QueryCallOptions, state: QueryState, t: TablePages, onRow: (row: unknown[]) => Promise<void> | void): Promise<TableRead> {
  const counted = await askCount(o, t.count, state);
  if (!counted.ok) return counted;
  let rows = 0;
  let cursor: unknown[] | undefined;
  while (rows < counted.count || cursor === undefined) {
    const limit = state.pageRows;
    const asked = await askQuery(o, t.page(cursor, limit));
    if (!asked.ok) return asked;
    const page = asked.answer.results;
    for (const row of page) await onRow(row);
    rows += page.length;
    state.pageRows = rowCapOf(limit, asked.answer.hogql, page.length, rows < counted.count);
    if (page.length === 0 || page.length < state.pageRows) break;
    cursor = t.cursorOf(page[page.length - 1]!);
  }
  // Counted again after the last page: a row added behind the cursor is in no page.
  const recounted = await askCount(o, t.count, state);
  if (!recounted.ok) return recounted;
  return { ok: true, rows, expected: counted.count, recounted: recounted.count };
}
