/**
 * `--from ga4`: the GA4 BigQuery export (`events_YYYYMMDD` tables) as JSON lines, one event per
 * line, as `bq extract` or a JSON export of the tables writes it. Parameters become properties,
 * user properties `$set`, the device, geo and traffic records PostHog's names. Pure; the
 * record fields are in ga4-fields.ts, the parameter lists in ga4-params.ts.
 */
import type { CandidateEvent } from '../../events/build-event.js';
import { canonicalJson } from '../../json/canonical-json.js';
import { formatTimestamp } from '../../events/timestamp.js';
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import { addGa4Fields, ga4InitialSource, GA4_RECORDS } from './ga4-fields.js';
import { flattenGa4Params, ga4Ecommerce, ga4Items } from './ga4-params.js';
import { ga4SessionId } from './ga4-session.js';
import type { SessionIdCache } from './vendor-sessions.js';
import { addReferringDomain } from './referring-domain.js';
import { jsonLinesReader } from '../json-lines.js';
import { addUrlParts, isMissing, isObject, renameIfAbsent, setIfAbsent, vendorItems, type Properties } from './vendor-values.js';

/** GA4's page and screen views are PostHog's (the built-in renames have them too). */
export const GA4_EVENT_RENAMES: Readonly<Record<string, string | null>> = { page_view: '$pageview', screen_view: '$screen' };

/** Event parameters with a PostHog name; the first of two for one name wins. */
export const GA4_PARAM_RENAMES: ReadonlyArray<readonly [string, string]> = [
  ['page_location', '$current_url'],
  ['page_referrer', '$referrer'],
  ['page_title', 'title'],
  ['ga_session_id', '$ga_session_id'],
  ['firebase_screen', '$screen_name'],
  ['screen_name', '$screen_name'],
];

/** Export bookkeeping left out: the date (of the property's zone) and the ordering fields, which make the uuid. */
export const GA4_DROPPED: ReadonlySet<string> = new Set([
  'event_date',
  'event_previous_timestamp',
  'event_server_timestamp_offset',
  'event_bundle_sequence_id',
  'batch_event_index',
  'batch_page_id',
  'batch_ordering_id',
]);

/** Fields read by name; `ecommerce` and `items` keep theirs, and any other field becomes `ga4_<field>`. */
const READ: ReadonlySet<string> = new Set([
  'event_name',
  'event_timestamp',
  'event_params',
  'user_id',
  'user_pseudo_id',
  'user_properties',
  'user_first_touch_timestamp',
  'traffic_source',
  ...GA4_RECORDS,
]);

/** Microseconds below this are before 1973: the value is in seconds or milliseconds, not GA4's unit. */
const MIN_MICROS = 1e14;

/**
 * A GA4 time in microseconds since 1970 (a number, or digits as BigQuery's JSON writes INT64)
 * as an ISO time with its microseconds (PostHog keeps them). Another string (a TIMESTAMP column, `... UTC`) is
 * left to the usual timestamp rules.
 */
export function ga4Time(value: unknown, field: string): { ok: true; value: unknown } | { ok: false; problem: RowProblem } {
  const fail = (reason: 'missing_timestamp' | 'bad_timestamp', message: string) => ({ ok: false as const, problem: problem(reason, field, message) });
  if (isMissing(value)) return fail('missing_timestamp', `${field} is missing`);
  let micros: bigint;
  if (typeof value === 'bigint') micros = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) micros = BigInt(value);
  else if (typeof value === 'string' && /^\d+$/.test(value.trim())) micros = BigInt(value.trim());
  else if (typeof value === 'string') return { ok: true, value };
  else return fail('bad_timestamp', `${field} must be microseconds since 1970, got ${JSON.stringify(value)}`);
  if (micros < BigInt(MIN_MICROS)) return fail('bad_timestamp', `${field} ${String(value)} is not in microseconds (GA4 writes 16 digits)`);
  const ms = Number(micros / 1000n);
  if (ms > 8.64e15) return fail('bad_timestamp', `${field} ${String(value)} is beyond any date`);
  return { ok: true, value: formatTimestamp(ms, Number(micros % 1000n)) };
}

function text(value: unknown): string | null {
  return isMissing(value) ? null : String(value);
}

/**
 * GA4 has no event id. Its own key for an event is the user's device (`user_pseudo_id`), the
 * upload bundle (`event_bundle_sequence_id`) and the position in it (`batch_*`), with name and
 * microsecond time. Without `batch_event_index` (exports before it existed) the parameters are
 * added, so two different events of one bundle at one microsecond stay two; identical ones are
 * one. Without a bundle id, the whole record is the identity.
 */
export function ga4Identity(record: Properties, params: Properties): string {
  if (isMissing(record.event_bundle_sequence_id)) return canonicalJson(record);
  const position = ['batch_page_id', 'batch_ordering_id', 'batch_event_index'].map((field) => text(record[field]));
  return canonicalJson([
    'ga4',
    text(record.stream_id),
    text(record.user_pseudo_id),
    text(record.user_id),
    record.event_name,
    text(record.event_timestamp),
    text(record.event_bundle_sequence_id),
    ...position,
    position[2] === null ? params : null,
  ]);
}

/** user_id, else user_pseudo_id (the device's id, GA4's anonymous user). */
function distinctIdOf(record: Properties): { value: unknown; field: string } {
  if (!isMissing(record.user_id)) return { value: record.user_id, field: 'user_id' };
  if (!isMissing(record.user_pseudo_id)) return { value: record.user_pseudo_id, field: 'user_pseudo_id' };
  return { value: undefined, field: 'user_id, user_pseudo_id' };
}

/** `$set` from the user properties, `$set_once` from the first-touch fields. */
function addPerson(out: Properties, record: Properties, userProperties: Properties): void {
  setIfAbsent(out, '$set', userProperties);
  const once = ga4InitialSource(record);
  const firstTouch = ga4Time(record.user_first_touch_timestamp, 'user_first_touch_timestamp');
  if (firstTouch.ok) once.ga4_first_touch_time = firstTouch.value;
  setIfAbsent(out, '$set_once', once);
}

function propertiesOf(record: Properties, params: Properties, userProperties: Properties, sessionId: string | undefined): Properties {
  const out: Properties = { ...params };
  for (const [from, to] of GA4_PARAM_RENAMES) renameIfAbsent(out, from, to);
  setIfAbsent(out, '$session_id', sessionId);
  addUrlParts(out);
  addReferringDomain(out);
  const web = String(record.platform).toUpperCase() === 'WEB' || (isObject(record.device) && isObject(record.device.web_info));
  addGa4Fields(out, record, web);
  if (!isMissing(record.user_id)) setIfAbsent(out, 'ga4_user_pseudo_id', record.user_pseudo_id);
  addPerson(out, record, userProperties);
  for (const [key, value] of Object.entries(record)) {
    if (key === 'items') {
      if (!Array.isArray(value) || value.length > 0) setIfAbsent(out, key, ga4Items(value));
    } else if (key === 'ecommerce') setIfAbsent(out, key, ga4Ecommerce(value));
    else if (!READ.has(key) && !GA4_DROPPED.has(key)) setIfAbsent(out, `ga4_${key}`, value);
  }
  return out;
}

/** One exported event as a candidate; `sessions` keeps the session ids of one file's recent events. */
export function mapGa4(record: Properties, sessions?: SessionIdCache): CandidateEvent | RowProblem {
  const params = flattenGa4Params(record.event_params, 'event_params');
  if (!params.ok) return params.problem;
  const userProperties = flattenGa4Params(record.user_properties, 'user_properties');
  if (!userProperties.ok) return userProperties.problem;
  const time = ga4Time(record.event_timestamp, 'event_timestamp');
  if (!time.ok) return time.problem;
  const distinctId = distinctIdOf(record);
  return {
    event: record.event_name,
    distinctId: distinctId.value,
    timestamp: time.value,
    uuid: undefined,
    properties: propertiesOf(record, params.value, userProperties.value, ga4SessionId(record.user_pseudo_id, params.value.ga_session_id, sessions)),
    identity: ga4Identity(record, params.value),
    fieldNames: { event: 'event_name', distinctId: distinctId.field, timestamp: 'event_timestamp' },
  };
}

export const ga4JsonItems = vendorItems(() => {
  const sessions: SessionIdCache = new Map();
  return (record) => mapGa4(record, sessions);
});
export const readGa4 = jsonLinesReader(ga4JsonItems);
