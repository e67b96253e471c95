/**
 * `--from posthog`: PostHog's own event export (batch-export JSON lines: `uuid`, `event`,
 * `distinct_id`, `timestamp`, `properties`, plus export metadata), for moving events between
 * projects or regions. Events keep their uuids, so PostHog's dedup key is the same as at home.
 */
import type { CandidateEvent } from '../../events/build-event.js';
import { canonicalJson } from '../../json/canonical-json.js';
import { MAX_PROPERTIES_DEPTH } from '../../json/json-depth.js';
import { jsonLinesReader } from '../json-lines.js';
import { parseJson } from '../../json/read-json.js';
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import { isMissing, isObject, vendorItems, markUtc, setIfAbsent, type Properties } from './vendor-values.js';

/** Top-level fields of older and newer exports that belong in the properties as sent. */
export const POSTHOG_TOP_LEVEL: ReadonlyArray<readonly [string, string]> = [
  ['$set', '$set'],
  ['set', '$set'],
  ['$set_once', '$set_once'],
  ['set_once', '$set_once'],
  ['elements_chain', '$elements_chain'],
  ['ip', '$ip'],
];

/**
 * The slots PostHog's ingestion writes from `$groups` by the project's group type indexes
 * (`$group_0`..`$group_4`). They are the source project's numbering: sent as they are, the
 * destination (whose indexes may differ) fills its own from `$groups` and keeps the stale
 * others, so an event would also belong to a group of another type. The destination derives them.
 */
const GROUP_SLOTS = ['$group_0', '$group_1', '$group_2', '$group_3', '$group_4'];

/**
 * A field holding a JSON object as an object: batch exports to Parquet (and warehouses' JSON
 * columns) write `properties`, `set` and `set_once` as JSON text.
 */
export function objectField(value: unknown, field: string): { value: Properties } | { problem: RowProblem } {
  if (value === undefined || value === null) return { value: {} };
  if (isObject(value)) return { value: { ...value } };
  if (typeof value === 'string') {
    const parsed = parseJson(value, { maxDepth: MAX_PROPERTIES_DEPTH });
    if (!parsed.ok) {
      const p = parsed.problem;
      if (p.reason !== 'bad_json') return { problem: problem(p.reason, p.field === '' ? field : `${field}.${p.field}`, `${field} (JSON text): ${p.message}`) };
    } else if (isObject(parsed.value)) return { value: parsed.value };
    return { problem: problem('bad_properties', field, `${field} is text but not a JSON object`) };
  }
  return { problem: problem('bad_properties', field, `${field} must be a JSON object`) };
}

/** `properties` as an object (see objectField). */
export function propertiesOf(value: unknown): { value: Properties } | { problem: RowProblem } {
  return objectField(value, 'properties');
}

/** The person updates (`$set`, `$set_once`, or `set`, `set_once` as batch exports name them), JSON text read as objects. */
const PERSON_UPDATE_FIELDS = new Set(['$set', 'set', '$set_once', 'set_once']);

function topLevelValue(record: Properties, from: string): { value: unknown } | { problem: RowProblem } {
  const value = record[from];
  if (!PERSON_UPDATE_FIELDS.has(from) || typeof value !== 'string') return { value };
  return value === '' ? { value: undefined } : objectField(value, from);
}

/**
 * One exported event as a candidate: the uuid is kept; a time without a zone is UTC (PostHog
 * stores UTC). Top-level fields not in POSTHOG_TOP_LEVEL (person_id, person_properties, team_id,
 * created_at, _inserted_at, ...) are what PostHog computes on arrival, or export metadata, and
 * are left out, as are the group slots (GROUP_SLOTS).
 */
export function mapPostHog(record: Properties): CandidateEvent | RowProblem {
  const read = propertiesOf(record.properties);
  if ('problem' in read) return read.problem;
  const properties = read.value;
  for (const slot of GROUP_SLOTS) delete properties[slot];
  for (const [from, to] of POSTHOG_TOP_LEVEL) {
    const value = topLevelValue(record, from);
    if ('problem' in value) return value.problem;
    setIfAbsent(properties, to, value.value);
  }
  const topLevel = !isMissing(record.distinct_id);
  return {
    event: record.event,
    distinctId: topLevel ? record.distinct_id : properties.distinct_id,
    timestamp: markUtc(record.timestamp),
    uuid: record.uuid,
    properties,
    identity: isMissing(record.uuid) ? canonicalJson(record) : '',
    fieldNames: { distinctId: topLevel || isMissing(properties.distinct_id) ? 'distinct_id' : 'properties.distinct_id' },
  };
}

export const posthogItems = vendorItems(() => mapPostHog);
export const readPostHog = jsonLinesReader(posthogItems);
