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
  ['uuid'],
  ['event'],
  ['properties'],
  ['timestamp'],
  ['offset'],
  ['$set'],
  ['$set_once'],
];
const BATCH_FIELD_GROUPS: readonly (readonly string[])[] = [['token', 'api_key'], ['historical_migration'], ['sent_at'], ['batch']];

const EVENT_FIELD_OF = fieldIndex(EVENT_FIELD_GROUPS);
const BATCH_FIELD_OF = fieldIndex(BATCH_FIELD_GROUPS);

function fieldIndex(groups: readonly (readonly string[])[]): Map<string, string> {
  const index = new Map<string, string>();
  for (const group of groups) for (const name of group) index.set(name, group[0]!);
  return index;
}

function keyCount(value: Obj): number {
  let n = 0;
  for (const key in value) if (Object.hasOwn(value, key)) n++;
  return n;
}

/** The keys as written, when JSON.parse kept only one of a repeated key: the first field named twice. */
function repeatedField(text: string, fields: Map<string, string>): string | undefined {
  const seen = new Set<string>();
  for (const { key } of objectMembers(text, 0)) {
    const field = fields.get(key);
    if (field === undefined) continue;
    if (seen.has(field)) return field;
    seen.add(field);
  }
  return undefined;
}

// JSON.parse gives no undefined values and these names are no Object.prototype member: a
// property read stands for "present".
const present = (v: unknown): number => (v === undefined ? 0 : 1);

export function duplicateEventField(event: Obj, scan: ObjectScan | undefined, text: () => string): string | undefined {
  if (present(event.token) + present(event.$token) + present(event.api_key) > 1) return 'token';
  if (event.distinct_id !== undefined && event.$distinct_id !== undefined) return 'distinct_id';
  if (scan === undefined || scan.keys === keyCount(event)) return undefined;
  return repeatedField(text(), EVENT_FIELD_OF);
}

export function duplicateBatchField(batch: Obj, scan: ObjectScan | undefined, text: () => string): string | undefined {
  if (batch.token !== undefined && batch.api_key !== undefined) return 'token';
  if (scan === undefined || scan.keys === keyCount(batch)) return undefined;
  return repeatedField(text(), BATCH_FIELD_OF);
}

const isMissing = (v: unknown): boolean => v === undefined || v === null;
const isHexCode = (c: number): boolean => (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);

/** 8-4-4-4-12 hex digits from `at`, any case. */
function isHyphenated(text: string, at = 0): boolean {
  if (text.length - at < 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = text.charCodeAt(at + i);
    const hyphenHere = i === 8 || i === 13 || i === 18 || i === 23;
    if (hyphenHere ? c !== 0x2d : !isHexCode(c)) return false;
  }
  return true;
}

function isSimple(text: string): boolean {
  for (let i = 0; i < 32; i++) if (!isHexCode(text.charCodeAt(i))) return false;
  return true;
}

/** Whether Rust's uuid crate reads it: hyphenated, 32 digits, in braces, or as a urn; nothing trimmed. */
export function isUuid(text: string): boolean {
  switch (text.length) {
    case 36:
      return isHyphenated(text);
    case 32:
      return isSimple(text);
    case 38:
      return text[0] === '{' && text[37] === '}' && isHyphenated(text, 1);
    case 45:
      return text.startsWith('urn:uuid:') && isHyphenated(text, 9);
    default:
      return false;
  }
}

/** The uuid in its usual form (lowercase, hyphenated), or undefined when it is not one. */
export function uuidForm(text: string): string | undefined {
  if (!isUuid(text)) return undefined;
  if (text.length === 32) return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`.toLowerCase();
  const at = text.length === 38 ? 1 : text.length === 45 ? 9 : 0;
  return text.slice(at, at + 36).toLowerCase();
}

const isOptionalString = (v: unknown): boolean => v === undefined || v === null || typeof v === 'string';
const isOptionalObject = (v: unknown): boolean => v === undefined || v === null || isObject(v);

function isInteger(v: unknown): boolean {
  return typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 2 ** 63;
}

/** The first field of an event whose value has the wrong type, with what it should be. */
export function eventFieldProblem(event: Obj): string | undefined {
  if (typeof event.event !== 'string') return event.event === undefined ? 'missing field `event`' : '`event` is not a string';
  if (!isOptionalString(event.token)) return '`token` is not a string';
  if (!isOptionalString(event.$token)) return '`$token` is not a string';
  if (!isOptionalString(event.api_key)) return '`api_key` is not a string';
  if (!isOptionalString(event.timestamp)) return '`timestamp` is not a string';
  if (event.properties !== undefined && !isObject(event.properties)) return '`properties` is not an object';
  if (!isOptionalObject(event.$set)) return '`$set` is not an object';
  if (!isOptionalObject(event.$set_once)) return '`$set_once` is not an object';
  if (!isMissing(event.offset) && !isInteger(event.offset)) return '`offset` is not an integer';
  const uuid = event.uuid;
  if (!isMissing(uuid) && uuid !== '' && !(typeof uuid === 'string' && isUuid(uuid))) return '`uuid` is not a valid uuid';
  return undefined;
}

/** The first batch field with the wrong type. */
export function batchFieldProblem(batch: Obj): string | undefined {
  if (!isOptionalString(batch.token)) return '`token` is not a string';
  if (!isOptionalString(batch.api_key)) return '`api_key` is not a string';
  if (!isOptionalString(batch.sent_at)) return '`sent_at` is not a string';
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
