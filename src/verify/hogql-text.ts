/**
 * The HogQL `verify` sends to PostHog's query endpoint, as text. Pure. Every value that goes
 * into a query (the import run id, times, uuids) is written as an escaped string literal, never
 * spliced in raw: the run id comes from a file, and a quote in it must not end the string.
 */

/** Escapes understood alike by PostHog's HogQL and the sandbox's reader. */
const ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\r': '\\r', '\t': '\\t', '\0': '\\0', '\b': '\\b', '\f': '\\f' };

/** A HogQL string literal holding exactly `value`. */
export function hogqlString(value: string): string {
  return `'${value.replace(/[\\'\n\r\t\0\b\f]/g, (ch) => ESCAPES[ch]!)}'`;
}

/** An instant as a UTC time literal with milliseconds and `Z`, read the same whatever the project's time zone. */
export function hogqlTime(ms: number): string {
  return hogqlString(new Date(ms).toISOString());
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * How a query groups by UTC day. HogQL shows times in the project's time zone, so in a project
 * that is not on UTC the day must be taken after converting back to UTC.
 */
export type DayGrouping = 'project-utc' | 'convert-to-utc';

function dayExpression(grouping: DayGrouping): string {
  return grouping === 'project-utc' ? 'toDate(timestamp)' : "toDate(toTimeZone(timestamp, 'UTC'))";
}

export interface Window {
  /** First instant, in ms since the epoch (inclusive). */
  fromMs: number;
  /** End, in ms since the epoch (exclusive). */
  toMs: number;
}

function timeFilter(window: Window): string {
  return `timestamp >= ${hogqlTime(window.fromMs)} AND timestamp < ${hogqlTime(window.toMs)}`;
}

export interface LandedCountsQuery extends Window {
  /** The `$import_run` every event of this staging file carries. */
  importRun: string;
  byEvent: boolean;
  grouping: DayGrouping;
  /** Rows asked for (one more than a page, so a full page says more exist). */
  limit: number;
  offset: number;
}

/** Distinct uuids of one import run per UTC day (and event), in a time window, one page. */
export function landedCountsQuery(q: LandedCountsQuery): string {
  const keys = q.byEvent ? 'day, event' : 'day';
  return [
    `SELECT ${dayExpression(q.grouping)} AS day, ${q.byEvent ? 'event, ' : ''}count(DISTINCT uuid) AS landed`,
    'FROM events',
    `WHERE ${timeFilter(q)} AND properties.$import_run = ${hogqlString(q.importRun)}`,
    `GROUP BY ${keys}`,
    `ORDER BY ${keys}`,
    `LIMIT ${q.limit} OFFSET ${q.offset}`,
  ].join('\n');
}

export interface UuidPageQuery extends Window {
  /** Only uuids after this one (keyset paging: no page is skipped when events arrive meanwhile). */
  after?: string;
  limit: number;
}

/**
 * One page of the distinct uuids PostHog holds in a time window, whatever their source: the
 * caller keeps those of its staging file. Ordered by uuid, so the next page starts after the
 * last uuid of this one.
 */
export function uuidPageQuery(q: UuidPageQuery): string {
  if (q.after !== undefined && !UUID.test(q.after)) throw new Error(`not a lower-case uuid: ${q.after}`);
  const after = q.after === undefined ? '' : ` AND uuid > ${hogqlString(q.after)}`;
  return ['SELECT DISTINCT uuid', 'FROM events', `WHERE ${timeFilter(q)}${after}`, 'ORDER BY uuid', `LIMIT ${q.limit}`].join('\n');
}

/** Whether the project's time zone, as a query answer names it, is UTC. */
export function isUtc(timezone: string | null | undefined): boolean {
  return timezone === undefined || timezone === null || ['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT', 'Universal', 'Zulu'].includes(timezone);
}
