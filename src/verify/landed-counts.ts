/**
 * How many of this staging file's delivered events PostHog holds, per UTC day (and event name),
 * and which it does not. Landed is counted by uuid, never by a property: for each window of
 * days, PostHog answers the distinct uuids it holds in that time range (whatever their source),
 * and the events the project received from this staging file (withdrawn versions excluded, as
 * they are no longer staged) are looked up among them, each once. So a withdrawn old version
 * carrying the same `$import_run`, or rows sent before `$import_run` existed, can neither hide
 * nor invent a loss; copies not merged yet count once.
 */
import { InterruptedError } from '../errors.js';
import type { HogQLAnswer } from '../management/hogql-query.js';
import { uuidPageQuery, type Window } from './hogql-text.js';

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

/** Every distinct uuid PostHog holds in a window, whatever its source, page by page, as 32 hex digits. */
export async function uuidsInWindow(run: QueryRunner, window: Window, signal: AbortSignal, pageRows = PAGE_ROWS): Promise<Set<string>> {
  const uuids = new Set<string>();
  let after: string | undefined;
  for (;;) {
    checkAbort(signal);
    const answer = await run(uuidPageQuery({ ...window, after, limit: pageRows + 1 }));
    const page = answer.results.slice(0, pageRows).map((row) => String(row[0]).toLowerCase());
    for (const uuid of page) uuids.add(uuid.replaceAll('-', ''));
    if (answer.results.length <= pageRows || page.length === 0) return uuids;
    after = page.at(-1);
  }
}

/** A delivered event PostHog does not hold. */
export interface MissingEvent {
  seq: number;
  /** Days since 1970-01-01, UTC. */
  day: number;
}

export interface Landed {
  counts: LandedCounts;
  /** The delivered events PostHog does not hold, in window order. */
  missing: MissingEvent[];
}

export interface ByUuids {
  windows: readonly Window[];
  byEvent: boolean;
  pageRows?: number;
  /** Visits the events of a window the project received from this staging file, uuids as 32 hex digits. */
  forEachDelivered(window: Window, visit: (seq: number, uuidHex: string, day: number, event: string) => void): void;
}

/** Delivered uuids PostHog holds, per staged day (and event), window by window; and those it does not. */
export async function landedByUuids(run: QueryRunner, o: ByUuids, signal: AbortSignal): Promise<Landed> {
  const counts: LandedCounts = new Map();
  const missing: MissingEvent[] = [];
  for (const window of o.windows) {
    const held = await uuidsInWindow(run, window, signal, o.pageRows);
    o.forEachDelivered(window, (seq, uuid, day, event) => {
      if (!held.has(uuid)) {
        missing.push({ seq, day });
        return;
      }
      const key = o.byEvent ? rowKey(day, event) : rowKey(day);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    });
  }
  return { counts, missing };
}
