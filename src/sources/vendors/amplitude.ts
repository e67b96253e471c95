/**
 * `--from amplitude`: Amplitude's Export API output, one event object per line (a zip of
 * gzipped JSON-lines files, or those files themselves), mapped the way PostHog's own Amplitude
 * importer maps it. Pure; the properties are in amplitude-properties.ts.
 */
import type { CandidateEvent } from '../../events/build-event.js';
import { canonicalJson } from '../../events/canonical-json.js';
import { jsonLinesReader } from '../json-lines.js';
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import { amplitudeProperties } from './amplitude-properties.js';
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
 * One exported event as a candidate. `event_time` is UTC by Amplitude's contract and is read
 * as UTC (never as local time); `uuid` is kept, so re-exports and the zip and its unzipped files
 * give the same uuids. An event without a uuid gets one derived from the whole record.
 */
export function mapAmplitude(record: Properties): CandidateEvent | RowProblem {
  const eventProperties = objectField(record, 'event_properties');
  if ('problem' in eventProperties) return eventProperties.problem;
  const userProperties = objectField(record, 'user_properties');
  if ('problem' in userProperties) return userProperties.problem;
  const distinctId = distinctIdOf(record);
  return {
    event: record.event_type,
    distinctId: distinctId.value,
    timestamp: markUtc(record.event_time),
    uuid: record.uuid,
    properties: amplitudeProperties(record, eventProperties.value, userProperties.value),
    // Only read when there is no uuid to keep; skipping it otherwise saves a serialisation.
    identity: isMissing(record.uuid) ? canonicalJson(record) : '',
    fieldNames: { event: 'event_type', distinctId: distinctId.field, timestamp: 'event_time' },
  };
}

export const amplitudeItems = vendorItems(() => mapAmplitude);
export const readAmplitude = jsonLinesReader(amplitudeItems);
