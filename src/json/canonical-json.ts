/**
 * JSON with object keys sorted at every depth, so two records with the same content give the
 * same text whatever order their fields came in. The input of stable uuid derivation: the text
 * must never change, or re-staged rows would get new uuids (see writeCanonical, the rule).
 *
 * The common value (parsed JSON: no BigInt, no key that is an array index) is written by the
 * native JSON.stringify from a copy whose keys were inserted in sorted order (objects already
 * sorted are reused): the same text as writeCanonical at a third of its cost, which was a fifth
 * of reading a JSON line. Any other value is written by writeCanonical itself.
 */
import { setOwnProperty } from './own-property.js';

export function canonicalJson(value: unknown): string {
  const sorted = sortedCopy(value, 0);
  return sorted === UNSORTABLE ? writeCanonical(value) : (JSON.stringify(sorted) ?? 'null');
}

/**
 * The rule, written out: keys sorted (by UTF-16 code units) at every depth, members whose value
 * is undefined left out, other values as JSON.stringify writes them (undefined and functions
 * in arrays as null), a BigInt (an integer beyond 2^53 read exactly) as its digits.
 * Recursive: values come from the JSON reader, whose depth is bounded.
 */
export function writeCanonical(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + writeCanonical(value[i]);
    return out + ']';
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    out += (first ? '' : ',') + JSON.stringify(key) + ':' + writeCanonical(item);
    first = false;
  }
  return out + '}';
}

/** Returned when a value cannot be written natively as writeCanonical writes it. */
const UNSORTABLE = Symbol('unsortable');

/** Beyond this depth writeCanonical writes the value (the native writer's stack is not the concern; the copy's recursion is). */
const MAX_COPY_DEPTH = 200;

/**
 * An array index (`0` .. `4294967294` without leading zeros): JavaScript objects list such keys
 * first, in numeric order, whatever order they were inserted in.
 */
function isArrayIndex(key: string): boolean {
  const c = key.charCodeAt(0);
  if (c < 48 || c > 57) return false;
  return /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295;
}

/**
 * `value` with its objects' keys in sorted order, for JSON.stringify to write: the value itself
 * where nothing had to move, UNSORTABLE where the native writer would write something else
 * than writeCanonical (a BigInt, an array index key, anything but plain data).
 */
function sortedCopy(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') {
    const type = typeof value;
    return type === 'string' || type === 'number' || type === 'boolean' || value === null ? value : UNSORTABLE;
  }
  if (depth > MAX_COPY_DEPTH) return UNSORTABLE;
  if (Array.isArray(value)) return sortedArray(value, depth);
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return UNSORTABLE;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let inOrder = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (isArrayIndex(key)) return UNSORTABLE;
    if (i > 0 && !(keys[i - 1]! < key)) inOrder = false;
  }
  if (!inOrder) keys.sort();
  let copy: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = record[key];
    // JSON.stringify leaves undefined members out, as writeCanonical does.
    if (item === undefined) continue;
    const sorted = sortedCopy(item, depth + 1);
    if (sorted === UNSORTABLE) return UNSORTABLE;
    if (copy === undefined && (!inOrder || sorted !== item)) {
      // Keys before this one (in order, so unchanged) start the copy.
      copy = {};
      for (let k = 0; k < i; k++) if (record[keys[k]!] !== undefined) setOwnProperty(copy, keys[k]!, record[keys[k]!]);
    }
    if (copy !== undefined) setOwnProperty(copy, key, sorted);
  }
  return copy ?? record;
}

function sortedArray(array: readonly unknown[], depth: number): unknown {
  let copy: unknown[] | undefined;
  for (let i = 0; i < array.length; i++) {
    const item = array[i];
    // undefined (and a hole) is written as null by both writers.
    const sorted = item === undefined ? undefined : sortedCopy(item, depth + 1);
    if (sorted === UNSORTABLE) return UNSORTABLE;
    if (copy === undefined && sorted !== item) copy = array.slice(0, i);
    if (copy !== undefined) copy.push(sorted);
  }
  return copy ?? array;
}
