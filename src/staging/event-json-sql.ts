/**
 * SQL that builds most of a staged event's /batch/ JSON while the page is read, exactly as
 * `eventJson` (src/delivery/event-encoding.ts) writes it: two strings per row, the text before
 * the timestamp's value and the text after it, instead of seven values and the objects and
 * strings made from them. The timestamp itself is written by `writeIsoTimestamp` between the two:
 * formatting dates in SQL cost more than everything else the query does per row.
 * (test/unit/event-json-sql.test.ts proves the joined text equal to eventJson.)
 *
 * - uuid: the 16 stored bytes as lowercase hex, hyphenated 8-4-4-4-12.
 * - event, distinct_id: json_quote escapes exactly as JSON.stringify does.
 * - properties: the stored text as it is; a JSONB value (binary) is turned back into its text
 *   with json(). Text does not go through json(): that would re-render it (minified), refuse
 *   nesting deeper than 1,000 levels that the text itself may have, and cost about 0.5 s of
 *   CPU per million rows, for the same text.
 */

/**
 * Wraps a query of staged rows (columns `uuid`, `event`, `distinct_id`, `properties` and any
 * others) so that it gives `columns`, then `head` (the event's JSON up to and including
 * `"timestamp":"`) and `tail` (from the timestamp's closing quote to the end).
 * `rows` may sort and limit; `columns` names its other columns to pass through.
 */
export function selectEventJsonParts(rows: string, columns: readonly string[]): string {
  const inner =
    `SELECT ${columns.join(', ')}, lower(hex(uuid)) AS h, event, distinct_id, ` +
    `iif(typeof(properties) = 'blob', json(properties), properties) AS p FROM (${rows})`;
  const head = `'{"uuid":"%s-%s-%s-%s-%s","event":%s,"distinct_id":%s,"timestamp":"'`;
  return (
    `SELECT ${columns.join(', ')}, printf(${head}, ` +
    `substr(h, 1, 8), substr(h, 9, 4), substr(h, 13, 4), substr(h, 17, 4), substr(h, 21), json_quote(event), json_quote(distinct_id)) AS head, ` +
    `'","properties":' || p || '}' AS tail FROM (${inner})`
  );
}
