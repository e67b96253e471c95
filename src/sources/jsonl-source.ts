/**
 * The JSON-lines reader: one object per line with event, distinct_id (top level or in
 * properties), timestamp, properties and uuid. Other top-level fields become properties so
 * nothing in the file is silently lost, except the capture-time fields listed below.
 */
import type { CandidateEvent } from '../events/build-event.js';
import { canonicalJson } from '../json/canonical-json.js';
import { problem, type RowProblem } from '../events/reject-reasons.js';
import { applyJsonColumns, valueAtPath } from './json-columns.js';
import { jsonItemMapper, jsonLinesReader, type JsonItemMapper } from './json-lines.js';
import { setOwnProperty } from '../json/own-property.js';
import type { CsvRole, ReaderOptions } from './source-item.js';

export { itemOf, parseObjectLine, readLines, type JsonRecordMapper } from './json-lines.js';

/** Top-level fields read as the event's own, not as properties ($set and $set_once are both). */
const ROLES: readonly CsvRole[] = ['event', 'distinct_id', 'timestamp', 'uuid', 'properties'];
/** Dropped: keys (secrets, never staged) and capture-time fields that would shift timestamps. */
const DROPPED = new Set(['api_key', 'token', 'sent_at', 'offset']);

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function missing(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/**
 * The top-level keys the roles are read from, which are not properties: their names, or the
 * key --column names. A field deeper in the record (`meta.ts`) stays where it is.
 */
function roleKeys(columns: Partial<Record<string, string>>): Set<string> {
  return new Set(ROLES.map((role) => columns[role] ?? role).filter((key) => !key.includes('.')));
}

const DEFAULT_ROLE_KEYS = roleKeys({});

/** A parsed JSON-lines object as a candidate event. Exported for the vendor readers. */
export function jsonObjectToCandidate(object: Record<string, unknown>, identity: string, columns: Partial<Record<string, string>> = {}): CandidateEvent | RowProblem {
  const propertiesPath = columns.properties ?? 'properties';
  const given = columns.properties === undefined ? object.properties : valueAtPath(object, propertiesPath);
  if (given !== undefined && !isObject(given)) {
    return problem('bad_properties', propertiesPath, `${propertiesPath} must be a JSON object`);
  }
  const properties: Record<string, unknown> = { ...given };
  const skip = Object.keys(columns).length === 0 ? DEFAULT_ROLE_KEYS : roleKeys(columns);
  for (const [key, value] of Object.entries(object)) {
    if (DROPPED.has(key) || skip.has(key)) continue;
    if (Object.hasOwn(properties, key)) {
      return problem('duplicate_property', key, `"${key}" is both a top-level field and a property`);
    }
    setOwnProperty(properties, key, value);
  }
  const topLevel = missing(object.distinct_id);
  return applyJsonColumns(
    {
      event: object.event,
      distinctId: topLevel ? properties.distinct_id : object.distinct_id,
      timestamp: object.timestamp,
      uuid: object.uuid,
      properties,
      identity,
      fieldNames: { distinctId: topLevel && !missing(properties.distinct_id) ? 'properties.distinct_id' : 'distinct_id' },
    },
    object,
    columns,
  );
}

/** Plain JSON lines: the identity of a row is its whole object. */
export function jsonlItems(options: Pick<ReaderOptions, 'columns'> = {}): JsonItemMapper {
  return jsonItemMapper((object) => jsonObjectToCandidate(object, canonicalJson(object), options.columns));
}

/** One line of a JSON-lines file as an item (tests, and the readers above). */
export function toJsonItem(entry: Parameters<JsonItemMapper>[0]) {
  return jsonlItems()(entry);
}

export const readJsonl = jsonLinesReader(jsonlItems);
