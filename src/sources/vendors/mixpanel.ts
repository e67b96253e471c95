/**
 * `--from mixpanel`: Mixpanel's raw event export (JSON lines of `{"event", "properties"}` with
 * `time`, `distinct_id`, `$insert_id` inside the properties; the export API's answers and the
 * old raw pipelines' files), and the current JSON pipelines' rows (mixpanel-pipeline.ts),
 * mapped the way PostHog's own Mixpanel importer maps the export. Pure: the Mixpanel table of
 * docs/sources.md is this file.
 */
import type { CandidateEvent } from '../../events/build-event.js';
import { canonicalJson } from '../../json/canonical-json.js';
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import { createZoneConverter, type ZoneConverter } from '../../events/time-zone.js';
import { parseTimestamp } from '../../events/timestamp.js';
import { jsonLinesReader } from '../json-lines.js';
import { setOwnProperty } from '../../json/own-property.js';
import { isPipelineRow, pipelineParts, PIPELINE_COLUMNS } from './mixpanel-pipeline.js';
import { addUrlParts, isMissing, isObject, setIfAbsent, vendorItems, type Properties } from './vendor-values.js';

/** Event renames this source adds to the built-in ones (which already include this one). */
export const MIXPANEL_EVENT_RENAMES: Readonly<Record<string, string | null>> = { $mp_web_page_view: '$pageview' };

/** Mixpanel properties with a PostHog equivalent. */
export const MIXPANEL_RENAMED: Readonly<Record<string, string>> = {
  $city: '$geoip_city_name',
  $region: '$geoip_subdivision_1_name',
  mp_country_code: '$geoip_country_code',
};

const RENAMED_PAIRS = Object.entries(MIXPANEL_RENAMED);

/** Mixpanel-internal properties left out: ingestion bookkeeping, and fields used elsewhere. */
export const MIXPANEL_DROPPED: ReadonlySet<string> = new Set([
  'time', // the event's timestamp
  'distinct_id', // the event's distinct_id
  '$insert_id', // Mixpanel's dedup id: it becomes the uuid
  '$mp_api_endpoint',
  '$mp_api_timestamp_ms',
  'mp_processing_time_ms',
  '$geo_source',
  'token', // the project token: keys are never staged
]);

/** Where the distinct_id is looked for, in order (Simplified ID Merge sets all three). */
const DISTINCT_ID_FIELDS = ['distinct_id', '$user_id', '$device_id'] as const;

const countryNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** Names by code as given: Intl.DisplayNames costs more than the rest of a row's mapping. */
const countryNameCache = new Map<string, string | undefined>();

function countryName(code: unknown): string | undefined {
  if (typeof code !== 'string') return undefined;
  const known = countryNameCache.get(code);
  if (known !== undefined || countryNameCache.has(code)) return known;
  let name: string | undefined;
  try {
    name = /^[A-Za-z]{2}$/.test(code) ? countryNames.of(code.toUpperCase()) : undefined;
  } catch {
    name = undefined;
  }
  // Bounded: two-letter codes are few; anything else is not cached past the bound.
  if (countryNameCache.size < 4096) countryNameCache.set(code, name);
  return name;
}

/**
 * The event's UTC time in ms. `time` is epoch seconds, or milliseconds above 1e10. Mixpanel
 * projects from before 2023 may write it in the project's time zone; `zone` undoes that.
 */
export function mixpanelTime(value: unknown, zone?: ZoneConverter): number | RowProblem {
  if (isMissing(value)) return problem('missing_timestamp', 'properties.time', 'time is missing');
  const parsed = parseTimestamp(value, 'properties.time');
  if (!parsed.ok) return parsed.problem;
  const epoch = typeof value === 'number' || /^\s*\d+(\.\d+)?\s*$/.test(String(value));
  if (zone === undefined || !epoch) return parsed.ms;
  const utc = zone.toUtc(parsed.ms);
  if (utc !== undefined) return utc;
  const wall = new Date(parsed.ms).toISOString().slice(0, 19).replace('T', ' ');
  return problem('nonexistent_local_time', 'properties.time', `${wall} does not exist in ${zone.name} (clocks jumped forward)`);
}

/** Mixpanel's properties as PostHog's: internal ones dropped, geo ones renamed, URL parts added. */
export function mixpanelProperties(source: Properties): Properties {
  const out: Properties = {};
  for (const key of Object.keys(source)) {
    if (!MIXPANEL_DROPPED.has(key) && !Object.hasOwn(MIXPANEL_RENAMED, key)) setOwnProperty(out, key, source[key]);
  }
  for (const [from, to] of RENAMED_PAIRS) {
    if (!Object.hasOwn(source, from)) continue;
    if (Object.hasOwn(out, to)) out[from] = source[from];
    else out[to] = source[from];
  }
  setIfAbsent(out, '$geoip_country_name', countryName(out.$geoip_country_code));
  addUrlParts(out);
  return out;
}

function distinctIdKey(source: Properties): (typeof DISTINCT_ID_FIELDS)[number] {
  return DISTINCT_ID_FIELDS.find((name) => !isMissing(source[name])) ?? 'distinct_id';
}

/** The pipeline column each distinct_id field comes from when the row gave it there. */
const PIPELINE_ID_COLUMNS = { distinct_id: 'distinct_id', $user_id: 'user_id', $device_id: 'device_id' } as const;

/** What the export's record and the pipeline's row both come down to. */
interface MixpanelParts {
  event: unknown;
  source: Properties;
  timeMs: number;
  /** Top-level fields the mapping does not read: kept as properties unless already there. */
  extra: Array<[string, unknown]>;
  /** The whole record, the identity of an event without `$insert_id`. */
  record: Properties;
  fieldNames: { event: string; distinctId: string; timestamp: string };
  sourceTime?: unknown;
}

/**
 * The candidate of an export record or a pipeline row. With a `$insert_id`, the uuid is derived
 * from Mixpanel's own dedup key (event name, distinct_id, `$insert_id`, time to the second), so
 * re-exports, overlapping exports and pipelines give the same uuid whatever else differs.
 * Without one, from the record.
 */
function mixpanelCandidate(parts: MixpanelParts): CandidateEvent {
  const { event, source, timeMs } = parts;
  const distinctId = source[distinctIdKey(source)];
  const properties = mixpanelProperties(source);
  for (const [key, value] of parts.extra) setIfAbsent(properties, key, value);
  const candidate: CandidateEvent = {
    event,
    distinctId,
    timestamp: new Date(timeMs).toISOString(),
    uuid: undefined,
    properties,
    identity: '',
    fieldNames: parts.fieldNames,
  };
  // Read in the project zone (or as UTC without one): another zone would move it.
  if (parts.sourceTime !== undefined) candidate.sourceTime = parts.sourceTime;
  const insertId = source.$insert_id;
  if (typeof insertId === 'string' && insertId.trim() !== '') {
    candidate.identity = canonicalJson(['mixpanel $insert_id', event, String(distinctId ?? ''), insertId]);
    candidate.uuidTimeMs = Math.floor(timeMs / 1000) * 1000;
  } else {
    candidate.identity = canonicalJson(parts.record);
  }
  return candidate;
}

const extraFields = (record: Properties, read: (key: string) => boolean): Array<[string, unknown]> => Object.entries(record).filter(([key]) => !read(key) && key !== 'token' && key !== 'api_key');

/** One raw-export record (the export API's, or an old raw pipeline's) as a candidate. */
function mapExportRecord(record: Properties, zone?: ZoneConverter): CandidateEvent | RowProblem {
  if (!isObject(record.properties)) {
    return problem('bad_properties', 'properties', record.properties === undefined ? 'no "properties" object (Mixpanel keeps time and distinct_id there)' : 'properties must be a JSON object');
  }
  const source = record.properties;
  const timeMs = mixpanelTime(source.time, zone);
  if (typeof timeMs !== 'number') return timeMs;
  return mixpanelCandidate({
    event: record.event,
    source,
    timeMs,
    extra: extraFields(record, (key) => key === 'event' || key === 'properties'),
    record,
    fieldNames: { event: 'event', distinctId: `properties.${distinctIdKey(source)}`, timestamp: 'properties.time' },
    sourceTime: source.time,
  });
}

/** One row of the current JSON pipelines as a candidate: the same event as the export's, in UTC. */
function mapPipelineRow(row: Properties): CandidateEvent | RowProblem {
  const parts = pipelineParts(row);
  if ('reason' in parts) return parts;
  const key = distinctIdKey(parts.source);
  const column = PIPELINE_ID_COLUMNS[key];
  return mixpanelCandidate({
    ...parts,
    extra: extraFields(row, (name) => PIPELINE_COLUMNS.has(name)),
    record: row,
    fieldNames: { event: 'event_name', distinctId: isMissing(row[column]) ? `properties.${key}` : column, timestamp: 'time' },
  });
}

/**
 * A line of `--from mixpanel`, told apart by its shape: a pipeline row names its event
 * `event_name`; anything else is read as the export's `{"event", "properties"}`.
 */
export function mapMixpanel(record: Properties, zone?: ZoneConverter): CandidateEvent | RowProblem {
  return isPipelineRow(record) ? mapPipelineRow(record) : mapExportRecord(record, zone);
}

export const mixpanelItems = vendorItems((options) => {
  const zone = options.timezone === undefined ? undefined : createZoneConverter(options.timezone);
  return (record) => mapMixpanel(record, zone);
});
export const readMixpanel = jsonLinesReader(mixpanelItems);
