/**
 * The HogQL `verify` sends to PostHog's query endpoint, as text. Pure. Every value that goes
 * into a query (times, uuids) is written as an escaped string literal, never spliced in raw.
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

export interface Window {
  /** First instant, in ms since the epoch (inclusive). */
  fromMs: number;
  /** End, in ms since the epoch (exclusive). */
  toMs: number;
}

function timeFilter(window: Window): string {
  return `timestamp >= ${hogqlTime(window.fromMs)} AND timestamp < ${hogqlTime(window.toMs)}`;
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
