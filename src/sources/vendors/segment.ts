/**
 * `--from segment`: Segment's raw archive (the S3 / raw data destination: gzipped JSON lines, one
 * call per line), mapped to PostHog the way PostHog's SDKs would have sent each call. track is
 * the event; page and screen are `$pageview` and `$screen`; identify is a person update
 * (`$identify`), group a group update (`$groupidentify`), alias a `$create_alias` merge. Pure;
 * the context fields are in segment-context.ts, and the docs' Segment tables are these files.
 */
import type { CandidateEvent } from '../../events/build-event.js';
import { canonicalJson } from '../../json/canonical-json.js';
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import { EventKind, type EventKindValue } from '../../events/staged-event.js';
import { groupDistinctId, readGroupKey } from '../people/group-record.js';
import { addReferringDomain } from './referring-domain.js';
import { addSegmentContext } from './segment-context.js';
import { jsonLinesReader } from '../json-lines.js';
import { addUrlParts, isMissing, isObject, renameIfAbsent, setIfAbsent, vendorItems, type Properties } from './vendor-values.js';

/** The group type of group calls and of `context.groupId` when --segment-group-type is not given. */
export const DEFAULT_SEGMENT_GROUP_TYPE = 'company';

export const SEGMENT_CALL_TYPES = ['track', 'page', 'screen', 'identify', 'group', 'alias'] as const;
type CallType = (typeof SEGMENT_CALL_TYPES)[number];

/**
 * Top-level fields left out: Segment's delivery bookkeeping (`timestamp` is the event time,
 * already corrected with them), routing options, and keys (never staged).
 */
export const SEGMENT_DROPPED: ReadonlySet<string> = new Set(['originalTimestamp', 'sentAt', 'receivedAt', 'integrations', 'version', 'projectId', '_metadata', 'writeKey', 'api_key', 'token']);

/** Top-level fields every call reads itself; any other is kept as `segment_<field>`. */
const READ = new Set(['type', 'event', 'userId', 'anonymousId', 'groupId', 'previousId', 'timestamp', 'properties', 'traits', 'context', 'messageId']);

/** Page properties analytics.js sets, under PostHog's names. */
export const SEGMENT_PAGE_PROPERTIES: ReadonlyArray<readonly [string, string]> = [
  ['url', '$current_url'],
  ['path', '$pathname'],
  ['referrer', '$referrer'],
];

type ObjectField = { value: Properties } | { problem: RowProblem };

function objectField(record: Properties, field: string): ObjectField {
  const value = record[field];
  if (value === undefined || value === null) return { value: {} };
  return isObject(value) ? { value } : { problem: problem('bad_properties', field, `${field} must be a JSON object`) };
}

function callType(value: unknown): CallType | RowProblem {
  const names = SEGMENT_CALL_TYPES.join(', ');
  if (isMissing(value)) return problem('missing_event', 'type', `type is missing: a Segment call is one of ${names}`);
  const type = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if ((SEGMENT_CALL_TYPES as readonly string[]).includes(type)) return type as CallType;
  return problem('bad_value', 'type', `type ${JSON.stringify(value).slice(0, 40)} is not a Segment call (${names})`);
}

/** What one call type makes: the event's name, kind and distinct_id, and its own properties. */
interface CallShape {
  event: unknown;
  kind: EventKindValue;
  distinctId: unknown;
  distinctIdField: string;
  /** Set before the context's, so they win. */
  properties: Properties;
}

/** An id usable as text: a non-blank string, a finite number, or an exact big integer. */
function isIdText(value: unknown): value is string | number | bigint {
  return (typeof value === 'string' && value.trim() !== '') || (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint';
}

/** userId, else anonymousId, as every Segment destination picks the user. */
function userOf(record: Properties): { value: unknown; field: string } {
  if (!isMissing(record.userId)) return { value: record.userId, field: 'userId' };
  if (!isMissing(record.anonymousId)) return { value: record.anonymousId, field: 'anonymousId' };
  return { value: undefined, field: 'userId, anonymousId' };
}

function userCall(record: Properties, event: unknown, kind: EventKindValue, properties: Properties): CallShape {
  const user = userOf(record);
  return { event, kind, distinctId: user.value, distinctIdField: user.field, properties };
}

function shapeOf(type: CallType, record: Properties, objects: { properties: Properties; traits: Properties }, groupType: string): CallShape | RowProblem {
  const own: Properties = { ...objects.properties };
  switch (type) {
    case 'track':
      return userCall(record, record.event, EventKind.event, own);
    case 'page':
      for (const [from, to] of SEGMENT_PAGE_PROPERTIES) renameIfAbsent(own, from, to);
      setIfAbsent(own, 'name', record.name);
      setIfAbsent(own, 'category', record.category);
      return userCall(record, '$pageview', EventKind.event, own);
    case 'screen':
      setIfAbsent(own, '$screen_name', record.name);
      setIfAbsent(own, 'category', record.category);
      return userCall(record, '$screen', EventKind.event, own);
    case 'identify':
      setIfAbsent(own, '$set', objects.traits);
      // Only a known user can be linked to the anonymous id; without userId this sets properties only.
      if (!isMissing(record.userId) && isIdText(record.anonymousId) && String(record.userId) !== String(record.anonymousId)) setIfAbsent(own, '$anon_distinct_id', String(record.anonymousId));
      return userCall(record, '$identify', EventKind.person, own);
    case 'alias':
      if (isMissing(record.previousId)) return problem('bad_value', 'previousId', 'previousId is missing: an alias call links it to userId');
      if (!isIdText(record.previousId)) return problem('bad_value', 'previousId', 'previousId must be a string or a number');
      own.alias = String(record.previousId);
      return userCall(record, '$create_alias', EventKind.person, own);
    case 'group': {
      const key = readGroupKey(record.groupId, 'groupId');
      if (typeof key !== 'string') return key;
      Object.assign(own, { $group_type: groupType, $group_key: key, $group_set: objects.traits });
      setIfAbsent(own, 'segment_user_id', record.userId);
      return { event: '$groupidentify', kind: EventKind.group, distinctId: groupDistinctId(groupType, key), distinctIdField: 'groupId', properties: own };
    }
  }
}

/** Properties every call shares: the context, the ids not used as distinct_id, the rest of the call. */
function addCommon(out: Properties, type: CallType, record: Properties, context: Properties, groupType: string): void {
  addSegmentContext(out, context, groupType);
  addUrlParts(out);
  addReferringDomain(out);
  setIfAbsent(out, 'segment_message_id', record.messageId);
  // The anonymous id, where it is neither the distinct_id nor identify's $anon_distinct_id.
  if (type === 'group' || (type !== 'identify' && !isMissing(record.userId))) setIfAbsent(out, 'segment_anonymous_id', record.anonymousId);
  const own = type === 'page' || type === 'screen' ? ['name', 'category'] : [];
  for (const [key, value] of Object.entries(record)) {
    if (!READ.has(key) && !SEGMENT_DROPPED.has(key) && !own.includes(key)) setIfAbsent(out, `segment_${key}`, value);
  }
}

/**
 * One Segment call as a candidate. `messageId` is the call's identity (Segment's own dedup
 * key), so a call delivered twice, or found in two archives, gets the same uuid whatever else
 * differs; a call without one is identified by its whole content.
 */
export function mapSegment(record: Properties, groupType: string = DEFAULT_SEGMENT_GROUP_TYPE): CandidateEvent | RowProblem {
  const type = callType(record.type);
  if (typeof type !== 'string') return type;
  const objects: Record<'properties' | 'traits' | 'context', Properties> = { properties: {}, traits: {}, context: {} };
  for (const field of ['properties', 'traits', 'context'] as const) {
    const read = objectField(record, field);
    if ('problem' in read) return read.problem;
    objects[field] = read.value;
  }
  const shape = shapeOf(type, record, objects, groupType);
  if ('reason' in shape) return shape;
  addCommon(shape.properties, type, record, objects.context, groupType);
  const messageId = typeof record.messageId === 'number' ? String(record.messageId) : record.messageId;
  return {
    event: shape.event,
    distinctId: shape.distinctId,
    timestamp: record.timestamp,
    uuid: undefined,
    properties: shape.properties,
    identity: typeof messageId === 'string' && messageId.trim() !== '' ? canonicalJson(['segment messageId', messageId]) : canonicalJson(record),
    fieldNames: { event: type === 'track' ? 'event' : 'type', distinctId: shape.distinctIdField, timestamp: 'timestamp' },
    kind: shape.kind,
  };
}

export const segmentItems = vendorItems((options) => {
  const groupType = options.groupType ?? DEFAULT_SEGMENT_GROUP_TYPE;
  return (record) => mapSegment(record, groupType);
});
export const readSegment = jsonLinesReader(segmentItems);
