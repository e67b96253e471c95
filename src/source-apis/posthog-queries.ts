/**
 * The HogQL a PostHog project is read with, and what its answers mean. Events: a window of
 * hours is counted, then paged by a `(timestamp, uuid)` cursor (never OFFSET, which reads
 * every row before the page again), in PostHog's own order for that pair, each page asking
 * for at most the instance's row cap. Pure.
 */
import { printHogQLString } from './hogql-text.js';
import { toUtcExact } from './posthog-time.js';
import type { Span } from './api-ranges.js';

const HOUR_MS = 3_600_000;

/** The most rows one answer holds on PostHog Cloud (MAX_SELECT_RETURNED_ROWS); older self-hosted versions hold 10,000. */
export const CLOUD_ROW_CAP = 50_000;

/** The event columns read, in this order. */
export const EVENT_COLUMNS = ['uuid', 'event', 'distinct_id', 'timestamp', 'properties', 'elements_chain'] as const;

/** Where a page starts: after this event, in `ORDER BY timestamp, uuid`. */
export interface EventCursor {
  /** UTC, as exact as the source wrote it. */
  timestamp: string;
  uuid: string;
}

/** A window of hours as the half-open UTC interval `[start, end)` of its times. */
export function windowTimes(span: Span): { start: string; end: string } {
  return { start: new Date(span.first * HOUR_MS).toISOString(), end: new Date((span.last + 1) * HOUR_MS).toISOString() };
}

function windowCondition(span: Span): string {
  const { start, end } = windowTimes(span);
  return `timestamp >= toDateTime(${printHogQLString(start)}) AND timestamp < toDateTime(${printHogQLString(end)})`;
}

export function countEventsQuery(span: Span): string {
  return `SELECT count() FROM events WHERE ${windowCondition(span)}`;
}

export function eventPageQuery(span: Span, after: EventCursor | undefined, limit: number): string {
  const cursor =
    after === undefined
      ? ''
      : ` AND (timestamp > toDateTime(${printHogQLString(after.timestamp)}) OR (timestamp = toDateTime(${printHogQLString(after.timestamp)}) AND uuid > ${printHogQLString(after.uuid)}))`;
  return `SELECT ${EVENT_COLUMNS.join(', ')} FROM events WHERE ${windowCondition(span)}${cursor} ORDER BY timestamp ASC, uuid ASC LIMIT ${limit}`;
}

/**
 * The rows the instance answers at most, as it says: PostHog prints the query it ran back in
 * `hogql`, with the LIMIT lowered to its cap. Rows fewer than asked while the window's count
 * says more remain tell the same thing on an instance that does not print it (and only there).
 */
export function rowCapOf(asked: number, hogql: string | null | undefined, received: number, moreExpected: boolean): number {
  const printed = hogql === null || hogql === undefined ? undefined : /\bLIMIT\s+(\d+)\s*(?:OFFSET\s+\d+\s*)?$/i.exec(hogql);
  if (printed) return Math.min(asked, Number(printed[1]));
  // Only where the instance does not say: a short page may also be rows deleted, or copies not
  // merged yet, since the count; a cap the instance printed is never lowered by one.
  return received > 0 && received < asked && moreExpected ? received : asked;
}

export type EventLine = { ok: true; line: string; cursor: EventCursor } | { ok: false; message: string };

/**
 * One answered row as a line of PostHog's export format (what `--from posthog` reads): the
 * time in UTC, the properties as the JSON text PostHog holds (so big numbers keep their digits).
 */
export function eventLine(row: readonly unknown[], timezone: string): EventLine {
  const [uuid, event, distinctId, timestamp, properties, elementsChain] = row;
  if (typeof uuid !== 'string' || typeof timestamp !== 'string') return { ok: false, message: `a row without a uuid or a timestamp: ${JSON.stringify(row).slice(0, 200)}` };
  const utc = toUtcExact(timestamp, timezone);
  if (utc === undefined) return { ok: false, message: `the time ${JSON.stringify(timestamp)} of event ${uuid} is not one PostHog writes` };
  const record: Record<string, unknown> = { uuid, event, distinct_id: distinctId, timestamp: utc, properties: typeof properties === 'string' ? properties : JSON.stringify(properties ?? {}) };
  if (typeof elementsChain === 'string' && elementsChain !== '') record.elements_chain = elementsChain;
  return { ok: true, line: `${JSON.stringify(record)}\n`, cursor: { timestamp: utc, uuid } };
}
