/**
 * One reading of `verify`: the staging file's counts for the range (read once), and which of
 * the project's delivered events PostHog holds, by uuid, window by window.
 */
import { countByDay, forEachDeliveredUuid, stagedTimeRange, type DayCount, type TimeRange } from '../staging/day-counts.js';
import { readImportRunId } from '../staging/import-run-id.js';
import type { StagingStore } from '../staging/staging-store.js';
import { dayWindows, type DayTotal } from './day-windows.js';
import { landedByUuids, type MissingEvent, type QueryRunner } from './landed-counts.js';
import { DAY_MS, dayStartMs } from './utc-day.js';
import { compareRows, summarize, type VerifyRow } from './verify-table.js';
import type { Reading } from './wait-for-landing.js';

/**
 * Staged events per window: a window's uuids are held in memory, and each page of them is one
 * query that PostHog answers well within its run time limit.
 */
export const MAX_EVENTS_PER_UUID_WINDOW = 200_000;

export interface StagedCounts {
  range: TimeRange | undefined;
  counts: DayCount[];
  days: DayTotal[];
  importRun: string | undefined;
}

function rangeOf(store: StagingStore, since: string | undefined, until: string | undefined): TimeRange | undefined {
  const staged = stagedTimeRange(store);
  if (staged === undefined) return undefined;
  const fromMs = since !== undefined ? dayStartMs(since) : Math.floor(staged.firstMs / DAY_MS) * DAY_MS;
  const toMs = until !== undefined ? dayStartMs(until) + DAY_MS : (Math.floor(staged.lastMs / DAY_MS) + 1) * DAY_MS;
  return fromMs < toMs ? { fromMs, toMs } : undefined;
}

function dayTotals(counts: readonly DayCount[]): DayTotal[] {
  const days = new Map<number, number>();
  for (const c of counts) days.set(c.day, (days.get(c.day) ?? 0) + c.staged);
  return [...days].map(([day, events]) => ({ day, events })).sort((a, b) => a.day - b.day);
}

export function stagedCounts(store: StagingStore, projectId: number, o: { since?: string; until?: string; byEvent: boolean }): StagedCounts {
  const range = rangeOf(store, o.since, o.until);
  const counts = range === undefined ? [] : countByDay(store, projectId, range, o.byEvent);
  return { range, counts, days: dayTotals(counts), importRun: readImportRunId(store) };
}

export interface LandedPlan {
  store: StagingStore;
  projectId: number;
  staged: StagedCounts;
  byEvent: boolean;
  run: QueryRunner;
  signal: AbortSignal;
  /** Rows per answer page (tests use small pages). Default PAGE_ROWS. */
  pageRows?: number;
}

export interface VerifyReading extends Reading {
  rows: VerifyRow[];
  /** The delivered events PostHog does not hold: what --resend-missing re-queues. */
  missingEvents: MissingEvent[];
}

export async function readLanded(p: LandedPlan): Promise<VerifyReading> {
  const landed = await landedByUuids(
    p.run,
    {
      windows: dayWindows(p.staged.days, MAX_EVENTS_PER_UUID_WINDOW),
      byEvent: p.byEvent,
      pageRows: p.pageRows,
      forEachDelivered: (window, visit) => forEachDeliveredUuid(p.store, p.projectId, window, visit),
    },
    p.signal,
  );
  const rows = compareRows(p.staged.counts, landed.counts);
  const summary = summarize(rows);
  return { landed: landed.counts, rows, missing: summary.missing, delivered: summary.totals.delivered, missingEvents: landed.missing };
}
