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
 * The profile of a staged row: the JSON type of each top-level property of an event (kind 0),
 * the group types it uses, and how many `$set_once` nulls were dropped from it. Names holding
 * the separator (a NUL character) are left out.
 */
export function rowProfile(kind: EventKindValue, properties: Record<string, unknown>, setOnceNulls: number): string {
  let profile = '';
  if (kind === EventKind.event) {
    for (const name in properties) {
      if (OWN_KEYS.has(name) || name.includes(END)) continue;
      const type = jsonType(properties[name]);
      if (type !== undefined) profile += 'T' + TYPE_CODES[type] + name + END;
    }
  }
  for (const type of groupTypesOf(kind, properties)) if (!type.includes(END)) profile += 'G' + type + END;
  if (setOnceNulls > 0) profile += 'N' + setOnceNulls + END;
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
