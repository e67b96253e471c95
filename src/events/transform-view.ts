/**
 * The contract of a --transform module (docs/transforms.md), in both directions: the row as the
 * module sees it (after the mapping: names renamed, the time read as an ISO string), and what it
 * returns read back as candidates for the event rules, which then check them as they check a
 * source row.
 *
 * A field the module leaves as it was is taken from the row itself, so an event it does not
 * change is staged exactly as without a transform: the same uuid, the same time read in the
 * same zone. The first event returned keeps the row's uuid (given or derived); each further
 * one gets its own, derived from the row and its position, so a re-run gives the same uuids.
 * A further event that carries the row's uuid (as a spread copy does) is given its own too.
 */
import { distinctIdText } from '../json/json-numbers.js';
import { renameProperties, type CandidateEvent, type EventRules } from './build-event.js';
import { problem, type RowProblem } from './reject-reasons.js';
import { returnedValueProblem } from './returned-value.js';
import { normaliseUuid } from './stable-uuid.js';
import { parseTimestamp } from './timestamp.js';

/** What the module's default export is called with, once per row. */
export interface TransformView {
  /** The event name after the mapping. */
  event: unknown;
  /** As text when it is a string or a number (the text PostHog gets). */
  distinct_id: unknown;
  /** An ISO 8601 UTC string when the time could be read (in --timezone, if given); else as the source wrote it. */
  timestamp: unknown;
  /** After the mapping's property renames; big integers are BigInts. */
  properties: Record<string, unknown>;
  /** The source's uuid when it has one (normalised when valid), else null: the rules derive one. */
  uuid: unknown;
  source: { file: string; line: number };
}

/** Most events one row may become. */
export const MAX_EVENTS_PER_ROW = 1000;

const FIELDS = new Set(['event', 'distinct_id', 'timestamp', 'properties', 'uuid', 'source']);

/** The row as the module sees it, or the problem that rejects it first (a clash of renamed properties). */
export function transformView(candidate: CandidateEvent, rules: EventRules, source: { file: string; line: number }): TransformView | RowProblem {
  const renamed = renameProperties(candidate.properties, rules.nameMap.properties);
  if (!renamed.ok) return renamed.problem;
  const name = candidate.event;
  const mapped = typeof name === 'string' && rules.nameMap.events.has(name) ? rules.nameMap.events.get(name) : name;
  const time = parseTimestamp(candidate.timestamp, '', rules.zone);
  const given = candidate.uuid;
  return {
    event: mapped ?? null,
    distinct_id: distinctIdText(candidate.distinctId) ?? candidate.distinctId ?? null,
    timestamp: time.ok && Math.abs(time.ms) < 8.64e15 ? new Date(time.ms).toISOString() : (candidate.timestamp ?? null),
    properties: renamed.properties,
    uuid: given === undefined || given === null || given === '' ? null : typeof given === 'string' ? (normaliseUuid(given) ?? given) : given,
    source,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `a ${(value as object).constructor?.name ?? 'object'}`;
  return typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`;
}

/** The timestamp to check: the row's own when unchanged, a Date as its ISO string. */
function returnedTime(value: unknown, view: TransformView, row: CandidateEvent): { timestamp: unknown; sourceTime?: unknown } | string {
  if (value === view.timestamp) return { timestamp: row.timestamp, sourceTime: row.sourceTime };
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'timestamp is an invalid Date' : { timestamp: value.toISOString() };
  return { timestamp: value };
}

/** The uuid to check: the row's own for the first event; a further one carrying the row's gets its own. */
function returnedUuid(value: unknown, view: TransformView, row: CandidateEvent, index: number): unknown {
  const same = value === view.uuid || ((value === undefined || value === null) && view.uuid === null);
  if (index === 0) return same ? row.uuid : value;
  return same ? undefined : value;
}

/** One event returned, as a candidate; or what is wrong with it. */
function readEvent(value: unknown, index: number, view: TransformView, row: CandidateEvent): CandidateEvent | string {
  if (!isPlainObject(value)) return `${describe(value)}, not an event object`;
  for (const key of Object.keys(value)) {
    if (!FIELDS.has(key) && value[key] !== undefined) return `an unknown field "${key}" (an event has event, distinct_id, timestamp, properties and uuid)`;
  }
  const properties = value.properties === undefined ? {} : value.properties;
  if (!isPlainObject(properties)) return `properties as ${describe(properties)}, not an object`;
  const wrong = returnedValueProblem(properties, 'properties') ?? returnedValueProblem(value.event ?? null, 'event') ?? returnedValueProblem(value.distinct_id ?? null, 'distinct_id');
  if (wrong !== undefined) return wrong;
  const time = returnedTime(value.timestamp, view, row);
  if (typeof time === 'string') return time;
  return {
    event: value.event,
    distinctId: value.distinct_id,
    ...time,
    uuid: returnedUuid(value.uuid, view, row, index),
    properties,
    // The same source record, another event: its own derived uuid.
    identity: index === 0 ? row.identity : `${row.identity}\u0000transform:${index}`,
    kind: row.kind,
  };
}

/**
 * What the module returned, as candidates for the rules: none (null, or an empty array: the row
 * is dropped), one or more; or the problem that rejects the row as a whole.
 */
export function readReturned(returned: unknown, view: TransformView, row: CandidateEvent, name: string): CandidateEvent[] | RowProblem {
  const invalid = (what: string): RowProblem => problem('transform_invalid', '', `transform ${name} returned ${what}`);
  if (returned === null) return [];
  if (typeof (returned as { then?: unknown } | undefined)?.then === 'function') {
    return invalid('a Promise: a transform must return its result, not a promise of it (an async function cannot be used)');
  }
  if (returned === undefined) return invalid('undefined: return the event, an array of events, or null to drop the row');
  const list = Array.isArray(returned) ? returned : [returned];
  if (list.length > MAX_EVENTS_PER_ROW) return invalid(`${list.length} events for one row; at most ${MAX_EVENTS_PER_ROW}`);
  const out: CandidateEvent[] = [];
  for (let i = 0; i < list.length; i++) {
    const read = readEvent(list[i], i, view, row);
    if (typeof read === 'string') return invalid(list.length > 1 || Array.isArray(returned) ? `event ${i + 1} of ${list.length}: ${read}` : read);
    out.push(read);
  }
  return out;
}
