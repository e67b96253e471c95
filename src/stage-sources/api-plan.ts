/**
 * The plan of a source API run, kept in the range ledger: which ranges of the window are still
 * to fetch. Mixpanel: one range per day. Amplitude: the hours not fetched yet, cut into ranges
 * sized so an answer stays near a target (from the bytes per hour seen so far), or as given.
 */
import { cut, cutAtWindow, formatDay, formatHour, gaps, hoursForTarget, overlapLength, parseDay, parseHour, spanLength, type Span } from '../source-apis/api-ranges.js';
import type { ApiSource } from '../source-apis/api-source.js';
import { addPendingRanges, cutUnfetched, dropPlanned, rangesOf, type RangeRow } from '../staging/source-ranges.js';
import type { StagingStore } from '../staging/staging-store.js';

/** Bytes one Amplitude answer should come near: a quarter of its 4 GB cap, so a busier stretch still fits. */
export const TARGET_ANSWER_BYTES = 1024 ** 3;
/** Most hours one Amplitude request covers (the API takes up to 365 days): a month bounds what a failure costs. */
export const MAX_HOURS_PER_REQUEST = 31 * 24;
/** Hours of the first request, before anything is known of the data. */
export const FIRST_HOURS_PER_REQUEST = 24;

export function spanOf(api: ApiSource, row: { start: string; end: string }): Span {
  if (api.unit === 'day') return { first: parseDay(row.start)!, last: parseDay(row.end)! };
  return { first: parseHour(row.start, 'start')!, last: parseHour(row.end, 'start')! };
}

function boundsOf(api: ApiSource, span: Span): { start: string; end: string } {
  const format = api.unit === 'day' ? formatDay : formatHour;
  return { start: format(span.first), end: format(span.last) };
}

/** The ledger's ranges of `source` with at least a day or hour in `window`. */
export function rangesIn(api: ApiSource, store: StagingStore, source: string, window: Span): Array<RangeRow & { span: Span }> {
  return rangesOf(store, source)
    .map((row) => ({ ...row, span: spanOf(api, row) }))
    .filter((row) => overlapLength(row.span, window) > 0);
}

/** Ranges of `window` the ledger holds as fetched (done or empty), and the days or hours of the window they cover. */
export function fetchedIn(api: ApiSource, store: StagingStore, source: string, window: Span): { ranges: number; units: number } {
  const fetched = rangesIn(api, store, source, window).filter((row) => row.status === 'done' || row.status === 'empty');
  return { ranges: fetched.length, units: fetched.reduce((sum, row) => sum + overlapLength(row.span, window), 0) };
}

/** What an answer for `span` should weigh, from the bytes per day or hour of the source's answers so far (0: nothing known). */
export function expectedBytes(api: ApiSource, store: StagingStore, source: string, span: Span): number {
  const fetched = rangesOf(store, source).filter((row) => row.status === 'done');
  const units = fetched.reduce((sum, row) => sum + spanLength(spanOf(api, row)), 0);
  return units === 0 ? 0 : Math.ceil((fetched.reduce((sum, row) => sum + row.bytes, 0) / units) * spanLength(span));
}

/** Hours per Amplitude request from what the source's answers weighed so far. */
export function adaptiveHours(api: ApiSource, store: StagingStore, source: string, maxHours: number): number {
  const fetched = rangesOf(store, source).filter((row) => row.status === 'done' || row.status === 'empty');
  const hours = fetched.reduce((sum, row) => sum + spanLength(spanOf(api, row)), 0);
  if (hours < FIRST_HOURS_PER_REQUEST) return Math.min(maxHours, FIRST_HOURS_PER_REQUEST);
  const bytes = fetched.reduce((sum, row) => sum + row.bytes, 0);
  return hoursForTarget(bytes / hours, api.targetBytes ?? TARGET_ANSWER_BYTES, maxHours);
}

/**
 * Ranges not fetched (pending, or failed in an earlier run) that an edge of `window` falls
 * inside, cut at that edge: the part inside is fetched with the window, the rest keeps its
 * state for a window of its own. Without the cut, a window starting in the middle of a failed
 * range would take its hours as covered and never fetch them.
 */
function cutAtEdges(api: ApiSource, store: StagingStore, source: string, window: Span): void {
  for (const row of rangesOf(store, source)) {
    if (row.status !== 'pending' && row.status !== 'failed') continue;
    const parts = cutAtWindow(spanOf(api, row), window);
    if (parts.length > 1)
      cutUnfetched(
        store,
        row,
        parts.map((span) => boundsOf(api, span)),
      );
  }
}

/**
 * Plans the window's ranges not fetched yet as pending, so that every day or hour of the window
 * is in a range that lies wholly inside it (see cutAtEdges). Days: one each (a day already in
 * the ledger keeps its row). Hours: the hours no range holds (pending ranges cut from a window
 * are cut again; halves of a split and failed ranges stay as they are) are cut into ranges of
 * `hoursPerRequest`.
 */
export function planWindow(api: ApiSource, store: StagingStore, source: string, window: Span, hoursPerRequest: number, nowIso: string): void {
  store.transaction(() => {
    cutAtEdges(api, store, source, window);
    if (api.unit === 'day') {
      addPendingRanges(
        store,
        source,
        cut(window, 1).map((span) => boundsOf(api, span)),
        nowIso,
      );
      return;
    }
    dropPlanned(store, source, boundsOf(api, window));
    const covered = rangesOf(store, source).map((row) => spanOf(api, row));
    const planned = gaps(window, covered).flatMap((gap) => cut(gap, hoursPerRequest));
    addPendingRanges(
      store,
      source,
      planned.map((span) => boundsOf(api, span)),
      nowIso,
    );
  });
}

/** A range's key among those tried in a run (row ids are reused once a split range is deleted). */
export function rangeKey(row: { start: string; end: string }): string {
  return `${row.start}/${row.end}`;
}

/** The next range to fetch: the earliest of the window pending (or failed in an earlier run), wholly inside it, and not tried in this run. */
export function nextRange(api: ApiSource, store: StagingStore, source: string, window: Span, tried: ReadonlySet<string>): (RangeRow & { span: Span }) | undefined {
  return rangesIn(api, store, source, window).find(
    (row) => (row.status === 'pending' || row.status === 'failed') && row.span.first >= window.first && row.span.last <= window.last && !tried.has(rangeKey(row)),
  );
}
