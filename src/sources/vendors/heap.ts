/**
 * `--from heap`: the rows of Heap Connect's Avro files (one folder per table, see
 * heap-manifest.ts for which files are read) as events and person updates. The table is told by
 * the file's place, `sync_<dump>/<table>/part-*.avro`:
 * - an event table (`pageviews`, one per synced event) gives events named after it
 *   (`pageviews` as `$pageview`), sent by Heap's `user_id`, with every other column a property;
 * - `users` gives one `$identify` per row: the columns as `$set`, and, for a user Heap knows by
 *   an `identity`, the link of the `user_id` to that identity;
 * - `user_migrations` gives the `$identify` that links `from_user_id` to `to_user_id`, as Heap
 *   merged them.
 * Uuids come from the table and Heap's key, so a row read again, from any dump, is the same row.
 * Pure.
 */
import type { CandidateEvent } from '../../events/build-event.js';
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import { EventKind } from '../../events/staged-event.js';
import { canonicalJson } from '../../json/canonical-json.js';
import { distinctIdText } from '../../json/json-numbers.js';
import { setOwnProperty } from '../../json/own-property.js';
import { InputError } from '../../errors.js';
import { jsonLinesReader, type JsonRecordMapper } from '../json-lines.js';
import type { ReaderOptions } from '../source-item.js';
import { pipelineTime } from './mixpanel-pipeline.js';
import { isMissing, setIfAbsent, vendorItems, type Properties } from './vendor-values.js';
import { heapSessionId } from './heap-session.js';
import type { SessionIdCache } from './vendor-sessions.js';

/** Heap's page views are PostHog's. */
export const HEAP_EVENT_RENAMES: Readonly<Record<string, string | null>> = { pageviews: '$pageview' };

/** Where a data file sits: `sync_<dump_id>/<table>/<file>` (either slash). */
const FILE_PLACE = /(?:^|[\\/])sync_(\d+)[\\/]([^\\/]+)[\\/][^\\/]+$/;

/** The dump and table of a data file by its path, or undefined when it is not in Heap's layout. */
export function heapFilePlace(path: string): { dumpId: number; table: string } | undefined {
  const match = FILE_PLACE.exec(path);
  return match === null ? undefined : { dumpId: Number(match[1]), table: match[2]! };
}

function idText(value: unknown): string | undefined {
  return isMissing(value) ? undefined : distinctIdText(value);
}

/** A time column as ISO text, or the problem with it. */
function isoTime(value: unknown, field: string): string | RowProblem {
  const ms = pipelineTime(value, field);
  return typeof ms === 'number' ? new Date(ms).toISOString() : ms;
}

/** The columns of `row` but `leftOut`, nulls left out (as empty CSV cells are). */
function columnsBut(row: Properties, leftOut: ReadonlySet<string>): Properties {
  const out: Properties = {};
  for (const [key, value] of Object.entries(row)) if (!leftOut.has(key) && value !== null && value !== undefined) setOwnProperty(out, key, value);
  return out;
}

const EVENT_READ: ReadonlySet<string> = new Set(['user_id', 'time']);

/** Heap's autocaptured columns PostHog has names for: copied to those names, the columns kept as they are. */
export const HEAP_COPIES: ReadonlyArray<readonly [string, string]> = [
  ['domain', '$host'],
  ['path', '$pathname'],
  ['referrer', '$referrer'],
  ['browser', '$browser'],
  ['platform', '$os'],
  ['device_type', '$device_type'],
  ['country', '$geoip_country_name'],
  ['region', '$geoip_subdivision_1_name'],
  ['city', '$geoip_city_name'],
];

/** A row of an event table: its columns as properties, with PostHog's names for the page and the session added. */
export function heapEvent(table: string, row: Properties, sessions: SessionIdCache): CandidateEvent | RowProblem {
  if (isMissing(row.event_id)) return problem('bad_value', 'event_id', 'event_id is missing: Heap keys every event row by it');
  const timestamp = isoTime(row.time, 'time');
  if (typeof timestamp !== 'string') return timestamp;
  const properties = columnsBut(row, EVENT_READ);
  for (const [column, name] of HEAP_COPIES) setIfAbsent(properties, name, row[column]);
  setIfAbsent(properties, '$session_id', heapSessionId(row.user_id, row.session_id, row.session_time, Date.parse(timestamp), sessions));
  return {
    event: table,
    distinctId: idText(row.user_id),
    timestamp,
    uuid: undefined,
    properties,
    identity: `heap\n${table}\n${String(idText(row.event_id))}`,
    fieldNames: { distinctId: 'user_id', timestamp: 'time' },
  };
}

const USER_IDS: ReadonlySet<string> = new Set(['user_id', 'identity']);

/**
 * A `users` row as a person update at the user's join date (else its last change, else the
 * default time): sent by the identity when Heap has one, linking the `user_id` to it, else by
 * the `user_id`. Its other columns are `$set`.
 */
export function heapUser(row: Properties, defaultTimestampMs: number | undefined): CandidateEvent | RowProblem {
  const userId = idText(row.user_id);
  if (userId === undefined) return problem('missing_distinct_id', 'user_id', 'user_id is missing');
  const field = !isMissing(row.joindate) ? 'joindate' : !isMissing(row.join_date) ? 'join_date' : !isMissing(row.last_modified) ? 'last_modified' : undefined;
  const timestamp = field === undefined ? (defaultTimestampMs === undefined ? undefined : new Date(defaultTimestampMs).toISOString()) : isoTime(row[field], field);
  if (timestamp !== undefined && typeof timestamp !== 'string') return timestamp;
  const identity = idText(row.identity);
  const properties: Properties = { $set: columnsBut(row, USER_IDS) };
  if (identity !== undefined && identity !== userId) properties.$anon_distinct_id = userId;
  return {
    event: '$identify',
    distinctId: identity ?? userId,
    timestamp,
    uuid: undefined,
    properties,
    kind: EventKind.person,
    identity: canonicalJson({ heap: 'users', row }),
    fieldNames: { distinctId: identity === undefined ? 'user_id' : 'identity', timestamp: field ?? 'timestamp' },
  };
}

/** A `user_migrations` row as the `$identify` that merges `from_user_id` into `to_user_id`, at the migration's time. */
export function heapMigration(row: Properties, defaultTimestampMs: number | undefined): CandidateEvent | RowProblem {
  const from = idText(row.from_user_id);
  if (from === undefined) return problem('missing_distinct_id', 'from_user_id', 'from_user_id is missing');
  const to = idText(row.to_user_id);
  if (to === undefined) return problem('missing_distinct_id', 'to_user_id', 'to_user_id is missing');
  const timestamp = isMissing(row.time) ? (defaultTimestampMs === undefined ? undefined : new Date(defaultTimestampMs).toISOString()) : isoTime(row.time, 'time');
  if (timestamp !== undefined && typeof timestamp !== 'string') return timestamp;
  return {
    event: '$identify',
    distinctId: to,
    timestamp,
    uuid: undefined,
    properties: { $anon_distinct_id: from },
    kind: EventKind.person,
    identity: `heap\nuser_migrations\n${from}\n${to}`,
    fieldNames: { distinctId: 'to_user_id', timestamp: 'time' },
  };
}

/** The mapping of one file's rows, by the table its place names. */
export function heapMapper(options: ReaderOptions): JsonRecordMapper {
  const place = heapFilePlace(options.displayName);
  if (place === undefined) throw new InputError(`${options.displayName}: not a Heap Connect data file (sync_<dump_id>/<table>/part-*.avro)`);
  const { table } = place;
  if (table === 'users') return (row) => heapUser(row, options.defaultTimestampMs);
  if (table === 'user_migrations') return (row) => heapMigration(row, options.defaultTimestampMs);
  const sessions: SessionIdCache = new Map();
  return (row) => heapEvent(table, row, sessions);
}

export const heapItems = vendorItems(heapMapper);
export const readHeap = jsonLinesReader(heapItems);
