/**
 * Turns a candidate read from any source into a staged event or a reasoned problem. Every rule
 * of what may be sent lives here, so all sources (CSV, JSONL, vendors, people, groups) share it.
 */
import type { GroupProperties } from './group-observations.js';
import type { SourceNote } from './source-notes.js';
import { identityPair, type LinkFormat, type PAIR_BY_SQL, type PairKey } from './identity-pair.js';
import { applyIngestionRules, type IngestionRules } from './ingestion-rules.js';
import { distinctIdText } from '../json/json-numbers.js';
import { stringifyJson } from '../json/json-writer.js';
import { setOwnProperty } from '../json/own-property.js';
import { jsonDepth, MAX_PROPERTIES_DEPTH, nestsDeeperThan } from '../json/json-depth.js';
import { problem, type RowProblem } from './reject-reasons.js';
import type { NameMap } from './name-map.js';
import type { RowFacts } from './row-facts.js';
import { DEFAULT_MIN_TIME_MS, parseTimestamp, timeBoundsProblem, zonelessBoundsProblem } from './timestamp.js';
import type { ZoneConverter } from './time-zone.js';
import { deriveUuidBytes, normaliseUuid, uuidBytes, zonedRowKey } from './stable-uuid.js';
import { EventKind, RECENT_WINDOW_MS, type EventKindValue, type StagedEvent } from './staged-event.js';
import { CAPTURE_JSON_DEPTH_LIMIT, CLIENT_MAX_EVENT_BYTES, MAX_DISTINCT_ID_CHARS, MAX_GROUP_KEY_CHARS } from '../posthog/limits.js';

/** What a source reader extracted from one row, before any rule is applied. */
export interface CandidateEvent {
  event: unknown;
  distinctId: unknown;
  timestamp: unknown;
  /** The source's own uuid, or undefined when it has none. */
  uuid: unknown;
  properties: Record<string, unknown>;
  /** Canonical text of the source record; a derived uuid is a hash of it. */
  identity: string;
  /**
   * The time (UTC ms) a derived uuid's time bits are taken from, when not the event's own
   * (Mixpanel's dedup key counts the time to the second).
   */
  uuidTimeMs?: number;
  /** Source field names, for messages. Defaults: event, distinct_id, timestamp, uuid. */
  fieldNames?: Partial<Record<'event' | 'distinctId' | 'timestamp' | 'uuid', string>>;
  /**
   * The kind of update this row is, when the source says so row by row (a Segment identify is a
   * person update, a group call a group update); otherwise the rules' kind.
   */
  kind?: EventKindValue;
  /**
   * The time as the source wrote it, when the reader itself read it in a zone given as an
   * option (Mixpanel's project zone), so `timestamp` is already converted.
   */
  sourceTime?: unknown;
  /** What the reader did to the row that the summary counts (a time taken from another field...). */
  notes?: SourceNote[];
  /** Group properties the row carries apart from its event (Amplitude's `group_properties`). */
  groupProperties?: GroupProperties[];
}

export interface EventRules {
  nameMap: NameMap;
  /** The IANA zone for times without one; undefined rejects such times. */
  zone?: ZoneConverter;
  /** "Now" in UTC ms, injected so tests are deterministic. */
  nowMs: number;
  /** Times before this (UTC ms) are rejected as implausible. Default DEFAULT_MIN_TIME_MS (2000-01-01). */
  minTimeMs?: number;
  kind?: EventKindValue;
  /** Properties whose values attach the event to groups (`$groups`). */
  groups?: ReadonlyArray<{ type: string; property: string }>;
  /** --sessionize: a source `$session_id` that is not a UUIDv7 moves to `$source_session_id` (stage-piece.ts). */
  sessionize?: boolean;
  /** PostHog's ingestion rules (see ingestion-rules.ts); absent where only the mapping is tested. */
  ingestion?: IngestionRules;
  /** Draw each event's identity pair for this link format (see identity-pair.ts). */
  identityPairs?: LinkFormat;
}

export type BuildOutcome =
  /**
   * `zoneKey`: set when the event's time was read in a zone given as an option, so that the same
   * row read with another zone (whose uuid differs) can be recognised (see zonedRowKey).
   */
  { type: 'event'; event: StagedEvent; recent: boolean; zoneKey?: Uint8Array; facts?: RowFacts; pair?: PairKey | typeof PAIR_BY_SQL } | { type: 'skipped' } | { type: 'rejected'; problem: RowProblem };

const reject = (p: RowProblem): BuildOutcome => ({ type: 'rejected', problem: p });

function readDistinctId(value: unknown, field: string): string | RowProblem {
  // A number keeps its exact digits as text: 9007199254740993 and ...992 stay two users.
  if (typeof value === 'number' || typeof value === 'bigint') value = distinctIdText(value) ?? value;
  if (typeof value !== 'string' || value.trim() === '') {
    if (value === undefined || value === null || value === '') return problem('missing_distinct_id', field, 'distinct_id is missing or empty');
    if (typeof value === 'string') return problem('missing_distinct_id', field, 'distinct_id is only whitespace');
    return problem('bad_value', field, `distinct_id must be a string or a number, got ${typeof value}`);
  }
  if (value.length > MAX_DISTINCT_ID_CHARS) {
    return problem('distinct_id_too_long', field, `distinct_id has ${value.length} characters; PostHog keeps at most ${MAX_DISTINCT_ID_CHARS}`);
  }
  return value;
}

export type RenameResult = { ok: true; properties: Record<string, unknown> } | { ok: false; problem: RowProblem };

export function renameProperties(properties: Record<string, unknown>, renames: NameMap['properties']): RenameResult {
  if (renames.size === 0) return { ok: true, properties };
  const out: Record<string, unknown> = {};
  const renamedFrom = new Map<string, string>();
  for (const [key, value] of Object.entries(properties)) {
    const mapped = renames.has(key) ? renames.get(key)! : key;
    if (mapped === null) continue;
    if (Object.hasOwn(out, mapped)) {
      const other = renamedFrom.get(mapped) ?? mapped;
      return { ok: false, problem: problem('duplicate_property', key, `property "${mapped}" would be given twice (from "${other}" and "${key}")`) };
    }
    setOwnProperty(out, mapped, value);
    renamedFrom.set(mapped, key);
  }
  return { ok: true, properties: out };
}

/**
 * For a row whose instant a zone option decided, its time as written read as if UTC; undefined
 * for any other row. A time read with --timezone decides a derived uuid only (a given uuid does
 * not depend on it); a reader that applied a zone itself (Mixpanel) gives the time as written.
 */
function zonedWallMs(candidate: CandidateEvent, wallMs: number | undefined): number | undefined {
  if (candidate.sourceTime !== undefined) {
    const written = parseTimestamp(candidate.sourceTime, '');
    return written.ok ? written.ms : (written.wallMs ?? 0);
  }
  return wallMs !== undefined && isMissingUuid(candidate.uuid) ? wallMs : undefined;
}

function isMissingUuid(given: unknown): boolean {
  return given === undefined || given === null || given === '';
}

/** The source's uuid when it has one, else the one derived from the record's identity. */
function resolveUuid(candidate: CandidateEvent, timestampMs: number, field: string): Uint8Array | RowProblem {
  const given = candidate.uuid;
  if (isMissingUuid(given)) return deriveUuidBytes(candidate.identity, candidate.uuidTimeMs ?? timestampMs);
  const normalised = typeof given === 'string' ? normaliseUuid(given) : undefined;
  return normalised === undefined ? problem('bad_uuid', field, `"${String(given).slice(0, 60)}" is not a usable UUID`) : uuidBytes(normalised);
}

/** Sets `$groups[type]` from each group property present; a clash with a given `$groups` is a problem. */
function attachGroups(properties: Record<string, unknown>, groups: NonNullable<EventRules['groups']>): RowProblem | undefined {
  const given = properties.$groups;
  if (given !== undefined && (given === null || typeof given !== 'object' || Array.isArray(given))) {
    return problem('bad_properties', '$groups', '$groups must be a JSON object');
  }
  const out: Record<string, unknown> = { ...(given as Record<string, unknown> | undefined) };
  for (const { type, property } of groups) {
    const value = Object.hasOwn(properties, property) ? properties[property] : undefined;
    if (value === undefined || value === null || value === '') continue;
    const key = String(value);
    if (key.length > MAX_GROUP_KEY_CHARS) return problem('group_key_too_long', property, `group key has ${key.length} characters; PostHog keeps at most ${MAX_GROUP_KEY_CHARS}`);
    const current = Object.hasOwn(out, type) ? out[type] : undefined;
    if (current !== undefined && current !== key) return problem('duplicate_property', property, `$groups.${type} is already "${String(current)}"`);
    setOwnProperty(out, type, key);
  }
  if (Object.keys(out).length > 0) properties.$groups = out;
  return undefined;
}

function eventBytes(parts: readonly string[]): number {
  let chars = 0;
  for (const part of parts) chars += part.length;
  // Each UTF-16 unit is at most 3 UTF-8 bytes: only measure exactly when it could matter.
  if (chars * 3 <= CLIENT_MAX_EVENT_BYTES) return chars;
  let bytes = 0;
  for (const part of parts) bytes += Buffer.byteLength(part, 'utf8');
  return bytes;
}

/** Applies every staging rule to one candidate. */
export function buildEvent(candidate: CandidateEvent, rules: EventRules): BuildOutcome {
  const names = candidate.fieldNames ?? {};
  const eventField = names.event ?? 'event';
  if (typeof candidate.event !== 'string' || candidate.event.trim() === '') {
    const missing = candidate.event === undefined || candidate.event === null || candidate.event === '';
    return reject(problem(missing ? 'missing_event' : 'bad_value', eventField, missing ? 'event name is missing or empty' : 'event name must be a non-empty string'));
  }
  const mappedName = rules.nameMap.events.has(candidate.event) ? rules.nameMap.events.get(candidate.event)! : candidate.event;
  if (mappedName === null) return { type: 'skipped' };

  const distinctId = readDistinctId(candidate.distinctId, names.distinctId ?? 'distinct_id');
  if (typeof distinctId !== 'string') return reject(distinctId);

  const timestampField = names.timestamp ?? 'timestamp';
  if (candidate.timestamp === undefined || candidate.timestamp === null || candidate.timestamp === '') {
    return reject(problem('missing_timestamp', timestampField, 'timestamp is missing'));
  }
  const bounds = { minTimeMs: rules.minTimeMs ?? DEFAULT_MIN_TIME_MS, nowMs: rules.nowMs };
  const time = parseTimestamp(candidate.timestamp, timestampField, rules.zone);
  if (!time.ok) return reject(zonelessBoundsProblem(time, timestampField, bounds) ?? time.problem);
  const outOfBounds = timeBoundsProblem(time.ms, timestampField, bounds);
  if (outOfBounds) return reject(outOfBounds);

  const uuid = resolveUuid(candidate, time.ms, names.uuid ?? 'uuid');
  if (!(uuid instanceof Uint8Array)) return reject(uuid);
  const wallMs = zonedWallMs(candidate, time.wallMs);

  const renamed = renameProperties(candidate.properties, rules.nameMap.properties);
  if (!renamed.ok) return reject(renamed.problem);
  const grouped = rules.groups?.length ? attachGroups(renamed.properties, rules.groups) : undefined;
  if (grouped) return reject(grouped);
  const kind = candidate.kind ?? rules.kind ?? EventKind.event;
  const facts = rules.ingestion && applyIngestionRules({ event: mappedName, distinctId, kind, distinctIdField: names.distinctId ?? 'distinct_id' }, renamed.properties, rules.ingestion);
  if (facts !== undefined && 'reason' in facts) return reject(facts);
  const propertiesJson = stringifyJson(renamed.properties)!;
  if (nestsDeeperThan(propertiesJson, MAX_PROPERTIES_DEPTH)) {
    const message = `properties nest ${jsonDepth(propertiesJson)} levels deep; PostHog accepts at most ${MAX_PROPERTIES_DEPTH} (it refuses a request nested ${CAPTURE_JSON_DEPTH_LIMIT} levels deep)`;
    return reject(problem('too_deep', 'properties', message));
  }
  const size = eventBytes([propertiesJson, mappedName, distinctId]) + 120;
  if (size > CLIENT_MAX_EVENT_BYTES) {
    return reject(problem('event_too_large', '', `event is ${Math.round(size / 1024)} KiB; PostHog accepts at most ${CLIENT_MAX_EVENT_BYTES / 1024} KiB`));
  }
  return {
    type: 'event',
    event:
      time.subMsUs === undefined
        ? { uuid, kind, event: mappedName, distinctId, timestampMs: time.ms, propertiesJson }
        : { uuid, kind, event: mappedName, distinctId, timestampMs: time.ms, subMsUs: time.subMsUs, propertiesJson },
    recent: time.ms > rules.nowMs - RECENT_WINDOW_MS,
    zoneKey: wallMs === undefined ? undefined : zonedRowKey(uuid, wallMs),
    facts,
    pair: rules.identityPairs === undefined ? undefined : identityPair(rules.identityPairs, kind, distinctId, renamed.properties),
  };
}
