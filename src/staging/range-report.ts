/**
 * The range ledger as `status` shows it: per source API, how many ranges are in each state,
 * runs of consecutive ranges in the same state merged into spans (two years of days read as
 * a few lines), and every failed range with its error.
 */
import { parseDay, parseHour } from '../source-apis/api-ranges.js';
import { allRanges, type RangeRow, type RangeStatus } from './source-ranges.js';
import type { StagingStore } from './staging-store.js';

export interface RangeSpan {
  status: RangeStatus;
  start: string;
  end: string;
  ranges: number;
  rowsRead: number;
}

export interface RangeSourceReport {
  source: string;
  counts: Record<RangeStatus, number>;
  spans: RangeSpan[];
  failed: Array<{ start: string; end: string; attempts: number; error: string | null }>;
}

/** A bound as a number of days or hours, to tell whether two ranges touch. */
function unitOf(bound: string, edge: 'start' | 'end'): number | undefined {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(bound) ? parseDay(bound) : undefined;
  return day ?? parseHour(bound, edge);
}

function touches(a: RangeRow, b: RangeRow): boolean {
  const end = unitOf(a.end, 'start');
  return end !== undefined && unitOf(b.start, 'start') === end + 1;
}

function spansOf(rows: readonly RangeRow[]): RangeSpan[] {
  const spans: RangeSpan[] = [];
  let previous: RangeRow | undefined;
  for (const row of rows) {
    const last = spans.at(-1);
    if (last !== undefined && previous !== undefined && last.status === row.status && touches(previous, row)) {
      last.end = row.end;
      last.ranges++;
      last.rowsRead += row.rowsRead;
    } else {
      spans.push({ status: row.status, start: row.start, end: row.end, ranges: 1, rowsRead: row.rowsRead });
    }
    previous = row;
  }
  return spans;
}

/** A file of an older schema, read without migrating it (status is read-only), has no ledger. */
function hasLedger(store: StagingStore): boolean {
  return store.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'source_ranges'").get() !== undefined;
}

export function rangeReports(store: StagingStore): RangeSourceReport[] {
  if (!hasLedger(store)) return [];
  const bySource = new Map<string, RangeRow[]>();
  for (const row of allRanges(store)) {
    const rows = bySource.get(row.source) ?? [];
    rows.push(row);
    bySource.set(row.source, rows);
  }
  return [...bySource].map(([source, rows]) => {
    const counts: Record<RangeStatus, number> = { pending: 0, fetching: 0, done: 0, empty: 0, failed: 0 };
    for (const row of rows) counts[row.status]++;
    const failed = rows.filter((r) => r.status === 'failed').map((r) => ({ start: r.start, end: r.end, attempts: r.attempts, error: r.error }));
    return { source, counts, spans: spansOf(rows), failed };
  });
}
