/**
 * The fields of an event and of a batch as PostHog's capture reads them (typed structs, read
 * by serde_json): what each must be, aliases that count as the same field, and the uuid forms
 * Rust's uuid crate accepts (no trimming). A field of the wrong type, or given twice, refuses
 * the whole request.
 */
import { objectMembers } from './json-members.js';
import type { ObjectScan } from './json-scan.js';

type Obj = Record<string, unknown>;

export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Each alias group is one field of the struct. */
const EVENT_FIELD_GROUPS: readonly (readonly string[])[] = [
  ['token', '$token', 'api_key'],
  ['distinct_id', '$distinct_id'],
  ['uuid'], ['event'], ['properties'], ['timestamp'], ['offset'], ['$set'], ['$set_once'],
];
const BATCH_FIELD_GROUPS: readonly (readonly string[])[] = [['token', 'api_key'], ['historical_migration'], ['sent_at'], ['batch']];

const EVENT_FIELD_OF = fieldIndex(EVENT_FIELD_GROUPS);
const BATCH_FIELD_OF = fieldIndex(BATCH_FIELD_GROUPS);

function fieldIndex(groups: readonly (readonly string[])[]): Map<string, string> {
  const index = new Map<string, string>();
  for (const group of groups) for (const name of group) index.set(name, group[0]!);
  return index;
}

/** The field named twice, from the parsed object and, when its key count says so, its text. */
function duplicateField(value: Obj, fields: Map<string, string>, groups: readonly (readonly string[])[], scan: ObjectScan | undefined, text: () => string): string | undefined {
  for (const group of groups) {
    if (group.length > 1 && group.filter((name) => Object.hasOwn(value, name)).length > 1) return group[0];
  }
  if (scan === undefined || scan.keys === Object.keys(value).length) return undefined;
  // JSON.parse kept one of a repeated key: read the keys as written to know which.
  const seen = new Set<string>();
  for (const { key } of objectMembers(text(), 0)) {
    const field = fields.get(key);
    if (field === undefined) continue;
    if (seen.has(field)) return field;
    seen.add(field);
  }
  return undefined;
}

export function duplicateEventField(event: Obj, scan: ObjectScan | undefined, text: () => string): string | undefined {
  return duplicateField(event, EVENT_FIELD_OF, EVENT_FIELD_GROUPS, scan, text);
}

export function duplicateBatchField(batch: Obj, scan: ObjectScan | undefined, text: () => string): string | undefined {
  return duplicateField(batch, BATCH_FIELD_OF, BATCH_FIELD_GROUPS, scan, text);
}

const isMissing = (v: unknown): boolean => v === undefined || v === null;
const HEX = /^[0-9a-f]+$/i;

function isHyphenated(text: string): boolean {
  if (text.length !== 36) return false;
  for (const at of [8, 13, 18, 23]) if (text[at] !== '-') return false;
  return HEX.test(text.slice(0, 8) + text.slice(9, 13) + text.slice(14, 18) + text.slice(19, 23) + text.slice(24));
}

/** The uuid in its usual form, or undefined: the four forms of Rust's uuid crate, nothing trimmed. */
export function uuidForm(text: string): string | undefined {
  let hyphenated: string | undefined;
  if (text.length === 32 && HEX.test(text)) hyphenated = `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
  else if (isHyphenated(text)) hyphenated = text;
  else if (text.length === 38 && text.startsWith('{') && text.endsWith('}') && isHyphenated(text.slice(1, 37))) hyphenated = text.slice(1, 37);
  else if (text.length === 45 && text.startsWith('urn:uuid:') && isHyphenated(text.slice(9))) hyphenated = text.slice(9);
  return hyphenated?.toLowerCase();
}

/** The first field of an event whose value has the wrong type, with what it should be. */
export function eventFieldProblem(event: Obj): string | undefined {
  if (typeof event.event !== 'string') return event.event === undefined ? 'missing field `event`' : '`event` is not a string';
  for (const name of ['token', '$token', 'api_key', 'timestamp'] as const) {
    if (!isMissing(event[name]) && typeof event[name] !== 'string') return `\`${name}\` is not a string`;
  }
  if (event.properties !== undefined && !isObject(event.properties)) return '`properties` is not an object';
  for (const name of ['$set', '$set_once'] as const) if (!isMissing(event[name]) && !isObject(event[name])) return `\`${name}\` is not an object`;
  const offset = event.offset;
  if (!isMissing(offset) && !(typeof offset === 'number' && Number.isInteger(offset) && Math.abs(offset) < 2 ** 63)) return '`offset` is not an integer';
  const uuid = event.uuid;
  if (!isMissing(uuid) && uuid !== '' && !(typeof uuid === 'string' && uuidForm(uuid) !== undefined)) return '`uuid` is not a valid uuid';
  return undefined;
}

/** The first batch field with the wrong type. */
export function batchFieldProblem(batch: Obj): string | undefined {
  for (const name of ['token', 'api_key', 'sent_at'] as const) {
    if (!isMissing(batch[name]) && typeof batch[name] !== 'string') return `\`${name}\` is not a string`;
  }
  if (!isMissing(batch.historical_migration) && typeof batch.historical_migration !== 'boolean') return '`historical_migration` is not a boolean';
  return undefined;
}

/** `1.0` reads as 1 once parsed: an offset's text decides whether it was an integer. */
export function offsetWrittenAsInteger(eventText: string): boolean {
  const member = objectMembers(eventText, 0).findLast((m) => m.key === 'offset');
  return member === undefined || /^-?\d+$/.test(eventText.slice(member.valueStart, member.valueEnd));
}

/** The source text of a numeric distinct_id: the top-level one, else `properties.distinct_id`. */
export function distinctIdSource(eventText: string, inProperties: boolean): string | undefined {
  const members = objectMembers(eventText, 0);
  if (!inProperties) {
    const top = members.findLast((m) => m.key === 'distinct_id' || m.key === '$distinct_id');
    return top === undefined ? undefined : eventText.slice(top.valueStart, top.valueEnd);
  }
  const properties = members.findLast((m) => m.key === 'properties');
  if (properties === undefined) return undefined;
  const propertiesText = eventText.slice(properties.valueStart, properties.valueEnd);
  const inner = objectMembers(propertiesText, 0).findLast((m) => m.key === 'distinct_id');
  return inner === undefined ? undefined : propertiesText.slice(inner.valueStart, inner.valueEnd);
}
