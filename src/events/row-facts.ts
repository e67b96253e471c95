/**
 * What the staging file counts about each staged row, for the checks PostHog's ingestion rules
 * need over the whole file (property types, group types, ids PostHog will not merge on, events
 * carrying their own `$set`, `$set_once` nulls dropped). Worked out where the row is built (on
 * the worker threads) and carried to the writer compactly: a row's property and group types as
 * one *profile* text, which rows of one source nearly always share, so a batch holds each
 * profile once and the writer adds counts per profile, for the rows it actually staged. Pure.
 */
import { EventKind, type EventKindValue } from './staged-event.js';

/** A staged event (kind 0) carrying its own `$set`. */
export const FACT_EVENT_SET = 1;
/** An event whose distinct_id PostHog will not merge on. */
export const FACT_ILLEGAL_ID = 2;

export interface RowFacts {
  profile: string;
  /** FACT_* bits. */
  flags: number;
}

export type JsonType = 'string' | 'number' | 'boolean' | 'object' | 'array';

export type ProfileEntry =
  | { tag: 'type'; name: string; type: JsonType }
  | { tag: 'group'; type: string }
  | { tag: 'set-once-nulls'; count: number };

const TYPE_CODES: Record<JsonType, string> = { string: 's', number: 'n', boolean: 'b', object: 'o', array: 'a' };
const CODE_TYPES: Record<string, JsonType> = { s: 'string', n: 'number', b: 'boolean', o: 'object', a: 'array' };
const END = '\u0000';
/** Properties every row gets from the staging rules: always of one type, not worth counting. */
const OWN_KEYS = new Set(['$geoip_disable', '$import_source', '$import_run']);

/** The JSON type of a value as PostHog would see it; undefined for null (it fixes no type). */
export function jsonType(value: unknown): JsonType | undefined {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'object':
      if (value === null) return undefined;
      return Array.isArray(value) ? 'array' : 'object';
    default:
      return undefined;
  }
}

function groupTypesOf(kind: EventKindValue, properties: Record<string, unknown>): string[] {
  if (kind === EventKind.group) return typeof properties.$group_type === 'string' ? [properties.$group_type] : [];
  const groups = properties.$groups;
  if (groups === null || typeof groups !== 'object' || Array.isArray(groups)) return [];
  return Object.keys(groups);
}

/**
 * The last profile made, with what it was made from: rows of one source nearly always have the
 * same properties in the same order and of the same types, and give back the same string
 * object, which the batch then finds in its table without hashing a new string. Building and
 * hashing a new string per row cost a third of a second per million rows.
 */
const last = { kind: -1, names: [] as string[], codes: [] as string[], groups: '', setOnceNulls: 0, profile: '' };

function groupsPart(kind: EventKindValue, properties: Record<string, unknown>): string {
  let part = '';
  for (const type of groupTypesOf(kind, properties)) if (!type.includes(END)) part += 'G' + type + END;
  return part;
}

/** True when the event's properties have the names and types the last profile was made from. */
function sameAsLast(properties: Record<string, unknown>): boolean {
  let i = 0;
  for (const name in properties) {
    if (OWN_KEYS.has(name)) continue;
    const type = jsonType(properties[name]);
    const code = type === undefined ? '' : TYPE_CODES[type];
    if (last.names[i] !== name || last.codes[i] !== code) return false;
    i++;
  }
  return i === last.names.length;
}

/**
 * The profile of a staged row: the JSON type of each top-level property of an event (kind 0),
 * the group types it uses, and how many `$set_once` nulls were dropped from it. Names holding
 * the separator (a NUL character) are left out.
 */
export function rowProfile(kind: EventKindValue, properties: Record<string, unknown>, setOnceNulls: number): string {
  const groups = groupsPart(kind, properties);
  if (kind === last.kind && setOnceNulls === last.setOnceNulls && groups === last.groups && (kind !== EventKind.event || sameAsLast(properties))) return last.profile;
  let profile = '';
  const names: string[] = [];
  const codes: string[] = [];
  if (kind === EventKind.event) {
    for (const name in properties) {
      if (OWN_KEYS.has(name)) continue;
      const type = jsonType(properties[name]);
      const code = type === undefined ? '' : TYPE_CODES[type];
      names.push(name);
      codes.push(code);
      if (code !== '' && !name.includes(END)) profile += 'T' + code + name + END;
    }
  }
  profile += groups;
  if (setOnceNulls > 0) profile += 'N' + setOnceNulls + END;
  Object.assign(last, { kind, names, codes, groups, setOnceNulls, profile });
  return profile;
}

/** The entries of a profile, in order. */
export function readProfile(profile: string): ProfileEntry[] {
  const entries: ProfileEntry[] = [];
  let start = 0;
  for (let end = profile.indexOf(END); end !== -1; start = end + 1, end = profile.indexOf(END, start)) {
    const tag = profile[start];
    if (tag === 'T') entries.push({ tag: 'type', type: CODE_TYPES[profile[start + 1]!]!, name: profile.slice(start + 2, end) });
    else if (tag === 'G') entries.push({ tag: 'group', type: profile.slice(start + 1, end) });
    else if (tag === 'N') entries.push({ tag: 'set-once-nulls', count: Number(profile.slice(start + 1, end)) });
  }
  return entries;
}
