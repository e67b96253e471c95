/**
 * SQL that builds most of a staged event's /batch/ JSON while the page is read, exactly as
 * `eventJson` (src/delivery/event-encoding.ts) writes it. The timestamp is written between two
 * parts of that text by `writeIsoTimestamp`: formatting dates in SQL cost more than everything
 * else the query does per row.
 * (test/unit/event-json-sql.test.ts proves the text equal to eventJson, both ways of reading.)
 *
 * - uuid: the 16 stored bytes as lowercase hex, hyphenated 8-4-4-4-12.
 * - event, distinct_id: json_quote escapes exactly as JSON.stringify does.
 * - properties: the staged text as it is (from its property block, see property-blocks.ts); a
 *   JSONB value (binary: rows staged before blocks, or changed since) is turned back into its
 *   text with json(). Text does not go through json(): that would re-render it (minified),
 *   refuse nesting deeper than 1,000 levels that the text itself may have, and cost about 0.5 s
 *   of CPU per million rows, for the same text.
 *
 * Two ways of reading a page:
 * - `selectEventJsonParts`: a row per event, its JSON as two strings (`head`, `tail`).
 * - `selectEventJsonPage`: one row per page, every event's JSON as one UTF-8 blob and the
 *   events' seqs, times and byte lengths as one list. Per event it saves two strings decoded
 *   from UTF-8 and encoded back into the chunk, the uuid's formatting in SQL (the chunk builder
 *   writes it from the hex) and several concatenations: about half of the page query's cost on
 *   nested properties.
 */
import { propertiesBytesSql } from './property-blocks.js';

const PROPERTIES_TEXT = propertiesBytesSql('properties');

/**
 * Wraps a query of staged rows (columns `uuid`, `event`, `distinct_id`, `properties` and any
 * others) so that it gives `columns`, then `head` (the event's JSON up to and including
 * `"timestamp":"`) and `tail` (from the timestamp's closing quote to the end).
 * `rows` may sort and limit; `columns` names its other columns to pass through.
 */
export function selectEventJsonParts(rows: string, columns: readonly string[]): string {
  const inner = `SELECT ${columns.join(', ')}, lower(hex(uuid)) AS h, event, distinct_id, ${PROPERTIES_TEXT} AS p FROM (${rows})`;
  const head = `'{"uuid":"%s-%s-%s-%s-%s","event":%s,"distinct_id":%s,"timestamp":"'`;
  return (
    `SELECT ${columns.join(', ')}, printf(${head}, ` +
    `substr(h, 1, 8), substr(h, 9, 4), substr(h, 13, 4), substr(h, 17, 4), substr(h, 21), json_quote(event), json_quote(distinct_id)) AS head, ` +
    `'","properties":' || p || '}' AS tail FROM (${inner})`
  );
}

/** A row whose properties are in a property block (see property-block-codec.ts: REF_MARKER, 9 bytes). */
export const IS_BLOCK_ROW = `(typeof(properties) = 'blob' AND length(properties) = 9 AND substr(properties, 1, 1) = x'0F')`;

/**
 * The columns a page query selects (as `j` and `r`) for `selectEventJsonPage`: the event's JSON
 * with the uuid as 32 uppercase hex digits in place of `{"uuid":"` and the hyphenated uuid, and
 * nothing between `"timestamp":"` and its closing quote (see writeStagedJson); for a row whose
 * properties are in a block, nothing between `"properties":` and the closing brace either, and
 * `r` its reference in hex ('' for the others): the reader copies the properties' bytes in from
 * the block (spliceBlockRows), which costs far less than a function call per row in SQL.
 */
export const STAGED_JSON_COLUMN =
  `concat(hex(uuid), '","event":', json_quote(event), ',"distinct_id":', json_quote(distinct_id), ` +
  `',"timestamp":"","properties":', iif(${IS_BLOCK_ROW}, '', ${PROPERTIES_TEXT}), '}') AS j, iif(${IS_BLOCK_ROW}, hex(properties), '') AS r`;

/**
 * One row for the page `rows` gives (it selects `seq`, `timestamp_ms`, `sub_ms_us` and
 * STAGED_JSON_COLUMN, sorted and limited): `meta`, the text `seq,timestamp_ms,sub_ms_us,bytes` of each event, joined by
 * commas (NULL for an empty page), `json`, the events' `j` back to back as one blob, and `refs`,
 * their `r` joined by commas. The
 * subquery's LIMIT keeps SQLite from merging it into the aggregate, so each `j` is built once.
 * The aggregates take the rows in the subquery's order; the reader checks that it is send order.
 */
/** The numbers of each event in a page's `meta`: seq, timestamp_ms, sub_ms_us, bytes. */
export const PAGE_META_NUMBERS = 4;
/** Where an event's byte length is among its PAGE_META_NUMBERS. */
export const PAGE_META_BYTES = 3;

export function selectEventJsonPage(rows: string): string {
  return `SELECT group_concat(seq || ',' || timestamp_ms || ',' || sub_ms_us || ',' || octet_length(j), ',') AS meta, CAST(group_concat(j, '') AS BLOB) AS json, group_concat(r, ',') AS refs FROM (${rows})`;
}
