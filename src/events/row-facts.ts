/**
 * What the staging file counts about each staged row, for the checks PostHog's ingestion rules
 * need over the whole file (property types, group types, ids PostHog will not merge on, events
 * carrying their own `$set`, `$set_once` nulls dropped). Worked out where the row is built (on
 * the worker threads) and carried to the writer compactly: a row's property and group types as
 * one *profile*, which rows of one source mostly share, so a batch holds each profile once and
 * the writer adds counts per profile, for the rows it actually staged. No I/O; the table of
 * profile entries is kept per thread.
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

export type ProfileEntry = { tag: 'type'; name: string; type: JsonType } | { tag: 'group'; type: string } | { tag: 'set-once-nulls'; count: number };

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
 * Each entry of a profile ('T' + type code + name, 'G' + group type, 'N' + count) is given one
 * character, per thread, so a row's profile is first made as a key of one character per entry
 * (found through a map by the property name, whose hash the engine keeps): hashing a profile
 * text of every property's name for each row cost more than half a microsecond a row. The batch
 * turns each distinct key into its text once (`profileText`). Characters are taken outside the
 * surrogate range; past the last one, rows get their text directly.
 */
const byName = new Map<string, Array<string | undefined>>();
const byEntry = new Map<string, string>();
const entryTexts: string[] = [];
const FIRST_CODE = 0x21;
const LAST_CODE = 0xfffe;
/** Starts a profile given as its text, once the characters are used up. */
const AS_TEXT = '\uffff';
const TYPE_INDEX: Record<string, number> = { s: 0, n: 1, b: 2, o: 3, a: 4 };

function nextCode(): number | undefined {
  let code = FIRST_CODE + entryTexts.length;
  if (code >= 0xd800) code += 0x800; // no lone surrogates
  return code <= LAST_CODE ? code : undefined;
}

function entryChar(text: string): string | undefined {
  let ch = byEntry.get(text);
  if (ch !== undefined) return ch;
  const code = nextCode();
  if (code === undefined) return undefined;
  ch = String.fromCharCode(code);
  entryTexts.push(text);
  byEntry.set(text, ch);
  return ch;
}

function typeChar(name: string, code: string): string | undefined {
  let chars = byName.get(name);
  if (chars === undefined) byName.set(name, (chars = []));
  const index = TYPE_INDEX[code]!;
  return (chars[index] ??= entryChar('T' + code + name));
}

function groupsPart(kind: EventKindValue, properties: Record<string, unknown>): string[] {
  return groupTypesOf(kind, properties)
    .filter((type) => !type.includes(END))
    .map((type) => 'G' + type);
}

/** The profile as text (what `profileText` gives for a key), made directly. */
function profileAsText(kind: EventKindValue, properties: Record<string, unknown>, setOnceNulls: number): string {
  let text = '';
  if (kind === EventKind.event) {
    for (const name in properties) {
      const type = OWN_KEYS.has(name) || name.includes(END) ? undefined : jsonType(properties[name]);
      if (type !== undefined) text += 'T' + TYPE_CODES[type] + name + END;
    }
  }
  for (const entry of groupsPart(kind, properties)) text += entry + END;
  if (setOnceNulls > 0) text += 'N' + setOnceNulls + END;
  return text;
}

/**
 * The profile of a staged row, as a key (see `profileText`): the JSON type of each top-level
 * property of an event (kind 0), the group types it uses, and how many `$set_once` nulls were
 * dropped from it. Names holding the separator (a NUL character) are left out.
 */
export function rowProfile(kind: EventKindValue, properties: Record<string, unknown>, setOnceNulls: number): string {
  let key = '';
  if (kind === EventKind.event) {
    for (const name in properties) {
      const type = OWN_KEYS.has(name) || name.includes(END) ? undefined : jsonType(properties[name]);
      if (type === undefined) continue;
      const ch = typeChar(name, TYPE_CODES[type]);
      if (ch === undefined) return AS_TEXT + profileAsText(kind, properties, setOnceNulls);
      key += ch;
    }
  }
  const rest = groupsPart(kind, properties);
  if (setOnceNulls > 0) rest.push('N' + setOnceNulls);
  for (const entry of rest) {
    const ch = entryChar(entry);
    if (ch === undefined) return AS_TEXT + profileAsText(kind, properties, setOnceNulls);
    key += ch;
  }
  return key;
}

/** The text of a profile key made by rowProfile on this thread: its entries, each ended by NUL. */
export function profileText(key: string): string {
  if (key.startsWith(AS_TEXT)) return key.slice(AS_TEXT.length);
  let text = '';
  for (let i = 0; i < key.length; i++) {
    let index = key.charCodeAt(i) - FIRST_CODE;
    if (index >= 0xd800 - FIRST_CODE) index -= 0x800;
    text += entryTexts[index]! + END;
  }
  return text;
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
