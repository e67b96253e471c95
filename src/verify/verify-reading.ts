/**
 * One reading of `verify`: the staging file's counts for the range (read once), and what
 * PostHog holds, counted by the import run's property or by uuids, window by window.
 */
import { countByDay, forEachStagedUuid, stagedTimeRange, type DayCount, type TimeRange } from '../staging/day-counts.js';
import { readImportRunId } from '../staging/import-run-id.js';
import type { StagingStore } from '../staging/staging-store.js';
import { dayWindows, type DayTotal } from './day-windows.js';
import { landedByImportRun, landedByUuids, type QueryRunner } from './landed-counts.js';
import { DAY_MS, dayStartMs } from './utc-day.js';
import { compareRows, summarize, type VerifyRow } from './verify-table.js';
import type { Reading } from './wait-for-landing.js';

/**
 * Staged events per counting query. PostHog stops a query after a bounded run time; counting
 * distinct uuids of a few million events with a property filter stays well within it.
 */
export const MAX_EVENTS_PER_COUNT_QUERY = 2_000_000;
/** Staged events per window when uuids are compared: a window's uuids are held in memory. */
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
}

export async function readLanded(p: LandedPlan): Promise<VerifyReading> {
  const { importRun, days, counts } = p.staged;
  const landed =
    importRun !== undefined
      ? await landedByImportRun(p.run, { importRun, windows: dayWindows(days, MAX_EVENTS_PER_COUNT_QUERY), byEvent: p.byEvent, pageRows: p.pageRows }, p.signal)
      : await landedByUuids(
          p.run,
          { windows: dayWindows(days, MAX_EVENTS_PER_UUID_WINDOW), byEvent: p.byEvent, pageRows: p.pageRows, forEachStaged: (window, visit) => forEachStagedUuid(p.store, window, visit) },
          p.signal,
        );
  const rows = compareRows(counts, landed);
  const summary = summarize(rows);
  return { landed, rows, missing: summary.missing, delivered: summary.totals.delivered };
}
