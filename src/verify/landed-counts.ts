/**
 * How many distinct uuids of this staging file PostHog holds per UTC day (and event name):
 * counted by PostHog from the `$import_run` every sent event carries, or, for files staged
 * before that property existed, by fetching the uuids PostHog holds in each time window and
 * keeping those staged there. Distinct uuids, so copies not merged yet cannot hide a loss.
 */
import { InterruptedError, RemoteError } from '../errors.js';
import type { HogQLAnswer } from '../management/hogql-query.js';
import { isUtc, landedCountsQuery, uuidPageQuery, type DayGrouping, type Window } from './hogql-text.js';
import { dayNumber, parseDay } from './utc-day.js';

/** Runs one HogQL query (through the management client, 429s honoured). */
export type QueryRunner = (query: string) => Promise<HogQLAnswer>;

/** Rows asked per page: one fewer than PostHog's cap, so a full answer says more rows exist. */
export const PAGE_ROWS = 49_999;

/** landed per `rowKey(day, event)`. */
export type LandedCounts = Map<string, number>;

export function rowKey(day: number, event?: string): string {
  return event === undefined ? String(day) : `${day}\t${event}`;
}

function checkAbort(signal: AbortSignal): void {
  if (signal.aborted) throw new InterruptedError('interrupted while asking PostHog what landed; nothing was changed');
}

function readDay(value: unknown): number {
  const day = typeof value === 'string' ? parseDay(value.slice(0, 10)) : undefined;
  if (day === undefined) throw new RemoteError(`unexpected day in the query answer: ${JSON.stringify(value)}`);
  return dayNumber(day);
}

function readCount(value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new RemoteError(`unexpected count in the query answer: ${JSON.stringify(value)}`);
  return n;
}

export interface ByImportRun {
  importRun: string;
  windows: readonly Window[];
  byEvent: boolean;
  /** Rows per page. Default PAGE_ROWS. */
  pageRows?: number;
}

async function countWindow(run: QueryRunner, o: ByImportRun, window: Window, grouping: DayGrouping, into: LandedCounts): Promise<string | null | undefined> {
  let timezone: string | null | undefined;
  const pageRows = o.pageRows ?? PAGE_ROWS;
  for (let offset = 0; ; offset += pageRows) {
    const answer = await run(landedCountsQuery({ ...window, importRun: o.importRun, byEvent: o.byEvent, grouping, limit: pageRows + 1, offset }));
    timezone = answer.timezone;
    for (const row of answer.results.slice(0, pageRows)) {
      const key = o.byEvent ? rowKey(readDay(row[0]), String(row[1])) : rowKey(readDay(row[0]));
      into.set(key, (into.get(key) ?? 0) + readCount(row[o.byEvent ? 2 : 1]));
    }
    if (answer.results.length <= pageRows) return timezone;
  }
}

/**
 * PostHog counts: one query per window (more only past 49,999 rows of day and event). HogQL
 * shows times in the project's zone, so when the first answer names another zone than UTC the
 * count starts again with the days taken in UTC.
 */
export async function landedByImportRun(run: QueryRunner, o: ByImportRun, signal: AbortSignal): Promise<LandedCounts> {
  let grouping: DayGrouping = 'project-utc';
  const counts: LandedCounts = new Map();
  for (let i = 0; i < o.windows.length; i++) {
    checkAbort(signal);
    const timezone = await countWindow(run, o, o.windows[i]!, grouping, counts);
    if (i === 0 && grouping === 'project-utc' && !isUtc(timezone)) {
      grouping = 'convert-to-utc';
      counts.clear();
      i = -1;
    }
  }
  return counts;
}

/** Every distinct uuid PostHog holds in a window, whatever its source, page by page. */
export async function uuidsInWindow(run: QueryRunner, window: Window, signal: AbortSignal, pageRows = PAGE_ROWS): Promise<Set<string>> {
  const uuids = new Set<string>();
  let after: string | undefined;
  for (;;) {
    checkAbort(signal);
    const answer = await run(uuidPageQuery({ ...window, after, limit: pageRows + 1 }));
    const page = answer.results.slice(0, pageRows).map((row) => String(row[0]).toLowerCase());
    for (const uuid of page) uuids.add(uuid);
    if (answer.results.length <= pageRows || page.length === 0) return uuids;
    after = page.at(-1);
  }
}

export interface ByUuids {
  windows: readonly Window[];
  byEvent: boolean;
  pageRows?: number;
  /** Visits the staged events of a window (all kinds), uuids as 32 hex digits. */
  forEachStaged(window: Window, visit: (uuidHex: string, day: number, event: string) => void): void;
}

/** Staged uuids PostHog holds, per staged day (and event), window by window. */
export async function landedByUuids(run: QueryRunner, o: ByUuids, signal: AbortSignal): Promise<LandedCounts> {
  const counts: LandedCounts = new Map();
  for (const window of o.windows) {
    const held = new Set([...(await uuidsInWindow(run, window, signal, o.pageRows))].map((uuid) => uuid.replaceAll('-', '')));
    o.forEachStaged(window, (uuid, day, event) => {
      if (!held.has(uuid)) return;
      const key = o.byEvent ? rowKey(day, event) : rowKey(day);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    });
  }
  return counts;
}
