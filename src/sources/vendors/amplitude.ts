/**
 * `--from amplitude`: Amplitude's Export API output, one event object per line (a zip of
 * gzipped JSON-lines files, or those files themselves), mapped the way PostHog's own Amplitude
 * importer maps it. Pure; the properties are in amplitude-properties.ts.
 */
import type { CandidateEvent } from '../../events/build-event.js';
import { canonicalJson } from '../../json/canonical-json.js';
import { jsonLinesReader } from '../json-lines.js';
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import type { SourceNote } from '../../events/source-notes.js';
import { amplitudeGroupProperties, amplitudeGroups } from './amplitude-groups.js';
import { amplitudeProperties } from './amplitude-properties.js';
import { amplitudeSessionId, type SessionIdCache } from './amplitude-session.js';
import { isMissing, isObject, vendorItems, markUtc, type Properties } from './vendor-values.js';

/**
 * Event renames this source adds to the built-in ones (page and screen views are there
 * already). Session markers are dropped: PostHog computes sessions itself.
 */
export const AMPLITUDE_EVENT_RENAMES: Readonly<Record<string, string | null>> = {
  '[Amplitude] Page Viewed': '$pageview',
  '[Amplitude] Screen Viewed': '$screen',
  '[Amplitude] Element Clicked': '$autocapture',
  '[Amplitude] Element Changed': '$autocapture',
  session_start: null,
  session_end: null,
};

type ObjectField = { value: Properties | undefined } | { problem: RowProblem };

function objectField(record: Properties, field: string): ObjectField {
  const value = record[field];
  if (value === undefined || value === null) return { value: undefined };
  return isObject(value) ? { value } : { problem: problem('bad_properties', field, `${field} must be a JSON object`) };
}

/** user_id, else device_id, as PostHog's importer picks it; the field name is for messages. */
function distinctIdOf(record: Properties): { value: unknown; field: string } {
  if (!isMissing(record.user_id)) return { value: record.user_id, field: 'user_id' };
  if (!isMissing(record.device_id)) return { value: record.device_id, field: 'device_id' };
  return { value: undefined, field: 'user_id, device_id' };
}

/**
 * The event's time: `event_time`; without one, `client_event_time`, then `server_received_time`,
 * as PostHog's importer falls back (noted for the summary), unless --strict-time keeps the reject.
 */
function timeOf(record: Properties, strictTime: boolean): { value: unknown; field: string; note?: SourceNote } {
  if (!isMissing(record.event_time) || strictTime) return { value: record.event_time, field: 'event_time' };
  if (!isMissing(record.client_event_time)) return { value: record.client_event_time, field: 'client_event_time', note: { code: 'time_from_client_event_time' } };
  if (!isMissing(record.server_received_time)) return { value: record.server_received_time, field: 'server_received_time', note: { code: 'time_from_server_received_time' } };
  return { value: record.event_time, field: 'event_time' };
}

/**
 * One exported event as a candidate. `event_time` is UTC by Amplitude's contract and is read
 * as UTC (never as local time); `uuid` is kept, so re-exports and the zip and its unzipped files
 * give the same uuids. An event without a uuid gets one derived from the whole record.
 */
export function mapAmplitude(record: Properties, strictTime = false, sessions?: SessionIdCache): CandidateEvent | RowProblem {
  const eventProperties = objectField(record, 'event_properties');
  if ('problem' in eventProperties) return eventProperties.problem;
  const userProperties = objectField(record, 'user_properties');
  if ('problem' in userProperties) return userProperties.problem;
  const distinctId = distinctIdOf(record);
  const time = timeOf(record, strictTime);
  const groups = amplitudeGroups(record.groups);
  const notes = [time.note, groups.note].filter((note) => note !== undefined);
  const groupProperties = amplitudeGroupProperties(record.group_properties, groups.groups);
  const candidate: CandidateEvent = {
    event: record.event_type,
    distinctId: distinctId.value,
    timestamp: markUtc(time.value),
    uuid: record.uuid,
    properties: amplitudeProperties(record, eventProperties.value, userProperties.value, { groups: groups.groups, sessionId: amplitudeSessionId(record, sessions) }),
    // Only read when there is no uuid to keep; skipping it otherwise saves a serialisation.
    identity: isMissing(record.uuid) ? canonicalJson(record) : '',
    fieldNames: { event: 'event_type', distinctId: distinctId.field, timestamp: time.field },
  };
  if (notes.length > 0) candidate.notes = notes;
  if (groupProperties.length > 0) candidate.groupProperties = groupProperties;
  return candidate;
}

export const amplitudeItems = vendorItems((options) => {
  const sessions: SessionIdCache = new Map();
  return (record) => mapAmplitude(record, options.strictTime === true, sessions);
});
export const readAmplitude = jsonLinesReader(amplitudeItems);
