/**
 * SQL that builds a staged event's /batch/ JSON while the page is read, exactly as `eventJson`
 * (src/delivery/event-encoding.ts) writes it: one string per row instead of seven values and
 * the objects and strings made from them (test/unit/event-json-sql.test.ts proves them equal).
 *
 * - uuid: the 16 stored bytes as lowercase hex, hyphenated 8-4-4-4-12.
 * - event, distinct_id: json_quote escapes exactly as JSON.stringify does.
 * - timestamp: `Date.prototype.toISOString` with integer arithmetic (floor division, so times
 *   before 1970 are right too). date() covers years 0000 to 9999; outside them the day is moved
 *   by whole 400-year Gregorian cycles (146,097 days each, the calendar repeats) into that range,
 *   and the year written with a sign and six digits, as toISOString does.
 * - properties: the stored text as it is; a JSONB value (binary) is turned back into its text
 *   with json(). Text does not go through json(): that would re-render it (minified), refuse
 *   nesting deeper than 1,000 levels that the text itself may have, and cost about 0.5 s of
 *   CPU per million rows, for the same text.
 */

const DAY_MS = 86_400_000;
const CYCLE_DAYS = 146_097;
/** Days since 1970-01-01 of 0000-01-01 and 9999-12-31: SQLite's date() range. */
const FIRST_DATE_DAY = Date.parse('0000-01-01T00:00:00Z') / DAY_MS;
const LAST_DATE_DAY = Date.parse('9999-12-31T00:00:00Z') / DAY_MS;

/** Floor division of integers (SQLite's `/` truncates toward zero). */
function floorDiv(x: string, n: number): string {
  return `(CASE WHEN ${x} >= 0 THEN ${x} / ${n} ELSE (${x} - ${n - 1}) / ${n} END)`;
}

/** 'YYYY-MM-DD' (or '±YYYYYY-MM-DD') of `day`, days since 1970-01-01. */
function dateSql(day: string): string {
  const cycles = floorDiv(`(${day} - ${FIRST_DATE_DAY})`, CYCLE_DAYS);
  const moved = `date((${day} - ${cycles} * ${CYCLE_DAYS}) * 86400, 'unixepoch')`;
  const year = `(CAST(substr(${moved}, 1, 4) AS INTEGER) + 400 * ${cycles})`;
  const farDate = `printf(CASE WHEN ${year} BETWEEN 0 AND 9999 THEN '%04d' ELSE '%+07d' END, ${year}) || substr(${moved}, 5)`;
  return `(CASE WHEN ${day} BETWEEN ${FIRST_DATE_DAY} AND ${LAST_DATE_DAY} THEN date(${day} * 86400, 'unixepoch') ELSE ${farDate} END)`;
}

/**
 * Wraps a query of staged rows (columns `uuid`, `event`, `distinct_id`, `timestamp_ms`,
 * `properties` and any others) so that it gives `columns` and `json`, the event's JSON.
 * `rows` may sort and limit; `columns` names its other columns to pass through.
 */
export function selectEventJson(rows: string, columns: readonly string[]): string {
  const msOfDay = `((timestamp_ms % ${DAY_MS} + ${DAY_MS}) % ${DAY_MS})`;
  const day = `((timestamp_ms - ${msOfDay}) / ${DAY_MS})`;
  const inner =
    `SELECT ${columns.join(', ')}, lower(hex(uuid)) AS h, event, distinct_id, ${day} AS day, ${msOfDay} AS t, ` +
    `iif(typeof(properties) = 'blob', json(properties), properties) AS p FROM (${rows})`;
  const format = '{"uuid":"%s-%s-%s-%s-%s","event":%s,"distinct_id":%s,"timestamp":"%sT%02d:%02d:%02d.%03dZ","properties":%s}';
  return (
    `SELECT ${columns.join(', ')}, printf('${format}', ` +
    `substr(h, 1, 8), substr(h, 9, 4), substr(h, 13, 4), substr(h, 17, 4), substr(h, 21), json_quote(event), json_quote(distinct_id), ` +
    `${dateSql('day')}, t / 3600000, t / 60000 % 60, t / 1000 % 60, t % 1000, p) AS json FROM (${inner})`
  );
}
