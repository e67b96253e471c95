/**
 * Mixpanel's current (JSON) Data Pipelines write one event per row with the common fields as
 * columns: `event_name, time, distinct_id, device_id, user_id, insert_id, properties`. Such a
 * row is the export API's record in other clothes: this turns it back into the export's parts
 * (the event, its properties with `distinct_id`, `$insert_id`, `$device_id` and `$user_id` where
 * the export keeps them, and the UTC time), so mixpanel.ts stages it exactly as it stages the
 * same event from the export API. Pure.
 */
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import { parseTimestamp } from '../../events/timestamp.js';
import { setOwnProperty } from '../../json/own-property.js';
import { propertiesOf } from './posthog.js';
import { isMissing, markUtc, setIfAbsent, type Properties } from './vendor-values.js';

/** The columns of a pipeline's event row; any other column becomes a property. */
export const PIPELINE_COLUMNS: ReadonlySet<string> = new Set(['event_name', 'time', 'distinct_id', 'device_id', 'user_id', 'insert_id', 'properties']);

/** Epoch values from here up are microseconds (a TIMESTAMP written as an integer). */
const EPOCH_MICROS = 1e14;

/** A row of the current pipelines: it names its event `event_name` and has no `event`. */
export function isPipelineRow(record: Properties): boolean {
  return Object.hasOwn(record, 'event_name') && !Object.hasOwn(record, 'event');
}

/**
 * The row's `time` in UTC ms. The pipelines write UTC (a TIMESTAMP column); as JSON that may be
 * ISO text with or without a zone (`2025-09-01 10:00:00.123456 UTC`, `2025-09-01T10:00:00Z`),
 * or epoch seconds, milliseconds or microseconds. Text without a zone is UTC, never local time,
 * and `--timezone` never applies: it is for the export API's project-zone times. Heap
 * Connect's times follow the same rules (`field` names the column in messages).
 */
export function pipelineTime(value: unknown, field = 'time'): number | RowProblem {
  if (isMissing(value)) return problem('missing_timestamp', field, `${field} is missing`);
  const digits = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof digits === 'number' && Number.isInteger(digits) && digits >= EPOCH_MICROS) return Math.floor(digits / 1000);
  const parsed = parseTimestamp(markUtc(value), field);
  return parsed.ok ? parsed.ms : parsed.problem;
}

/** The parts of the export API's record a pipeline row stands for. */
export interface PipelineParts {
  event: unknown;
  /** The export's `properties`: the row's, with the columns the export keeps inside them. */
  source: Properties;
  timeMs: number;
}

/**
 * The row as the export's parts. The columns name the event, so they win over a value of the
 * same meaning inside `properties` (`distinct_id`, `$insert_id`); `$device_id` and `$user_id`
 * are properties the export keeps, so a value already there stays.
 */
export function pipelineParts(row: Properties): PipelineParts | RowProblem {
  const read = propertiesOf(row.properties);
  if ('problem' in read) return read.problem;
  const source = read.value;
  const timeMs = pipelineTime(row.time);
  if (typeof timeMs !== 'number') return timeMs;
  if (!isMissing(row.distinct_id)) setOwnProperty(source, 'distinct_id', row.distinct_id);
  if (!isMissing(row.insert_id)) setOwnProperty(source, '$insert_id', row.insert_id);
  setIfAbsent(source, '$user_id', row.user_id);
  setIfAbsent(source, '$device_id', row.device_id);
  return { event: row.event_name, source, timeMs };
}
