/**
 * Values read from columnar files (Parquet, Avro) written as JSON text, exactly: a 64-bit
 * integer as its digits, a decimal as its numeral, a time as an ISO 8601 text in UTC with every
 * fraction digit the file holds, nested lists and records as JSON arrays and objects. Pure: the
 * readers hand their decoded values here and the JSON readers downstream read the text as they
 * read any JSON line (docs/json-reading.md).
 */
import { jsonString as stringText } from '../csv-columns.js';
import { decodeUtf8Marking } from '../text-decoder.js';
import { isWellFormedText } from '../invalid-text.js';
import { parseJson } from '../../json/read-json.js';

/** A number whose exact numeral is known (a DECIMAL): written as that numeral. */
export class ExactNumeral {
  constructor(readonly text: string) {}
}

/** JSON text checked to be one JSON value and written without its spaces and line breaks (jsonCell): written as it is. */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * A JSON column's cell (Parquet's JSON type) as a value of the row: its text is checked to be
 * one JSON value, and its spaces and line breaks outside strings are dropped, so a pretty-printed
 * cell stays on its row's line and no text can close the row's object and add keys to it. Text
 * that is not JSON is kept as a string. Its numbers and keys are kept exactly as written: the
 * row's reader reads them (a JSON value that is too deep or holds a lone surrogate is read there
 * and rejected with its column, as in any JSON line).
 */
export function jsonCell(text: string): RawJson | string {
  const read = parseJson(text, { maxDepth: Number.POSITIVE_INFINITY });
  if (!read.ok && read.problem.reason === 'bad_json') return text;
  return new RawJson(withoutSpaces(text));
}

function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** Valid JSON text without the spaces between its tokens (a string's own characters kept, escapes included). */
function withoutSpaces(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (isJsonSpace(code)) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return out + text.slice(from);
}

/**
 * Keys that a plain object cannot hold as its own (`__proto__` replaces its prototype) are
 * escaped where a library builds objects from them (hyparquet's maps and structs): one NUL
 * before any `\0*__proto__`, taken away again when the key is written (pushEntries, rowKeys).
 * Every key of an object written here goes through escapeKey first, so the two are inverse.
 */
const ESCAPED_PROTO = /^\0+__proto__$/;
const PROTO_LIKE = /^\0*__proto__$/;

export function escapeKey(key: string): string {
  return PROTO_LIKE.test(key) ? `\0${key}` : key;
}

export function unescapeKey(key: string): string {
  return key.endsWith('__proto__') && ESCAPED_PROTO.test(key) ? key.slice(1) : key;
}

/** A string value that may become an object's key in a library (a Parquet MAP key): its escaped text when used as a key, itself when written as a value. */
export class KeyLikeText {
  constructor(readonly text: string) {}
  toString(): string {
    return escapeKey(this.text);
  }
}

/** Decoded text as a value: KeyLikeText when it is one that escapeKey changes. */
export function textValue(text: string): string | KeyLikeText {
  return text.endsWith('__proto__') && PROTO_LIKE.test(text) ? new KeyLikeText(text) : text;
}

/**
 * A 32-bit float (Parquet FLOAT, Avro float) as the shortest numeral that reads back as the same
 * float32: JavaScript widens 0.1f to 0.10000000149011612, digits the writer never meant. NaN and
 * infinities are left to writeValue.
 */
export function float32Value(value: unknown): unknown {
  if (typeof value !== 'number' || !Number.isFinite(value)) return value;
  for (let digits = 1; digits <= 9; digits++) {
    const shorter = Number(value.toPrecision(digits));
    if (Math.fround(shorter) === value) return new ExactNumeral(String(shorter));
  }
  return value;
}

const UNIT_DIGITS = { ms: 3, us: 6, ns: 9 } as const;
export type TimeUnit = keyof typeof UNIT_DIGITS;

/**
 * A count of `unit`s since 1970 as `YYYY-MM-DDTHH:MM:SS.fffZ`, the fraction with the unit's
 * digits (`.123456` for microseconds). Beyond the years JavaScript dates reach: the count's digits.
 */
export function isoTime(count: bigint, unit: TimeUnit): string {
  const digits = UNIT_DIGITS[unit];
  const perSecond = 10n ** BigInt(digits);
  let seconds = count / perSecond;
  let fraction = count % perSecond;
  if (fraction < 0n) {
    fraction += perSecond;
    seconds -= 1n;
  }
  const date = new Date(Number(seconds) * 1000);
  if (Number.isNaN(date.getTime())) return count.toString();
  const whole = date.toISOString().slice(0, 19);
  return `${whole}.${fraction.toString().padStart(digits, '0')}Z`;
}

/** Days since 1970 as `YYYY-MM-DD`. */
export function isoDate(days: number): string {
  const date = new Date(days * 86_400_000);
  return Number.isNaN(date.getTime()) ? String(days) : date.toISOString().slice(0, 10);
}

/** An unscaled decimal integer and its scale as the exact numeral (`12345`, 2 -> `123.45`). */
export function decimalNumeral(unscaled: bigint, scale: number): string {
  if (scale <= 0) return (unscaled * 10n ** BigInt(-scale)).toString();
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** A big-endian two's-complement integer (Parquet's and Avro's decimal bytes). */
export function bigEndianInteger(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return bytes[0]! >= 0x80 ? value - (1n << BigInt(bytes.length * 8)) : value;
}

/**
 * Bytes of a string column as text. Bytes that are not UTF-8 are kept as marks (lone
 * surrogates) that no valid text holds, so the row holding them is rejected with its column.
 */
export function textOfBytes(bytes: Uint8Array): string {
  return decodeUtf8Marking(bytes);
}

/**
 * Bytes without a text annotation (a Parquet BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY with none) as
 * text when they are UTF-8, as many writers leave strings unannotated, else as base64 text (as
 * Avro bytes are): such bytes are data, not text in another encoding, so --encoding could not help.
 */
export function textOrBase64(bytes: Uint8Array): string {
  const text = textOfBytes(bytes);
  return isWellFormedText(text) ? text : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * The JSON text of one decoded value. A float JSON cannot write (NaN, infinities) is written as
 * its name in a string, never silently as null; bytes as UTF-8 text (see textOfBytes).
 */
export function writeValue(value: unknown): string {
  const parts: string[] = [];
  pushValue(parts, value);
  return parts.join('');
}

/**
 * Pushes the JSON text of `value` onto `parts`, in flat pieces joined once: text grown by `+=`
 * is a rope of one part per piece, and flattening thousands of those ropes (when the splitter
 * first searches a chunk) cost more than writing them (measured on a Parquet file of 200,000
 * rows: about 2 s of the main thread's CPU). Recursive: a columnar schema's nesting is its own,
 * bounded by the file.
 */
export function pushValue(parts: string[], value: unknown): void {
  switch (typeof value) {
    case 'string':
      parts.push(stringText(value));
      return;
    case 'number':
      parts.push(Number.isFinite(value) ? String(value) : `"${String(value)}"`);
      return;
    case 'bigint':
      parts.push(value.toString());
      return;
    case 'boolean':
      parts.push(value ? 'true' : 'false');
      return;
    case 'undefined':
      parts.push('null');
      return;
    case 'object':
      pushObjectValue(parts, value);
      return;
    default:
      parts.push(stringText(String(value)));
  }
}

function pushObjectValue(parts: string[], value: object | null): void {
  if (value === null) parts.push('null');
  else if (value instanceof ExactNumeral || value instanceof RawJson) parts.push(value.text);
  else if (value instanceof KeyLikeText) parts.push(stringText(value.text));
  else if (value instanceof Uint8Array) parts.push(stringText(textOrBase64(value)));
  else if (value instanceof Date) parts.push(Number.isNaN(value.getTime()) ? 'null' : `"${value.toISOString()}"`);
  else if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    const items = value as ArrayLike<unknown>;
    parts.push('[');
    for (let i = 0; i < items.length; i++) {
      if (i > 0) parts.push(',');
      pushValue(parts, items[i]);
    }
    parts.push(']');
  } else if (value instanceof Map)
    pushEntries(
      parts,
      [...value.entries()].map(([k, v]) => [String(k), v]),
    );
  else pushEntries(parts, Object.entries(value));
}

function pushEntries(parts: string[], entries: ReadonlyArray<readonly [string, unknown]>): void {
  parts.push('{');
  for (let i = 0; i < entries.length; i++) {
    const [key, item] = entries[i]!;
    parts.push(i === 0 ? '' : ',', stringText(unescapeKey(key)), ':');
    pushValue(parts, item);
  }
  parts.push('}');
}

/** What comes before each column's value in a row's line: `{"name":` for the first, `,"name":` after. */
export function rowKeys(names: readonly string[]): string[] {
  return names.map((name, i) => `${i === 0 ? '{' : ','}${stringText(unescapeKey(name))}:`);
}

/** One row (its values in column order) as a JSON object line: every column, null ones too. */
export function writeRow(names: readonly string[], values: readonly unknown[]): string {
  const parts: string[] = [];
  pushRow(parts, rowKeys(names), values);
  return parts.join('');
}

/** Pushes one row's JSON object line (without its line end) onto `parts` (see pushValue), each column after its key (rowKeys). */
export function pushRow(parts: string[], keys: readonly string[], values: readonly unknown[]): void {
  if (keys.length === 0) parts.push('{');
  for (let i = 0; i < keys.length; i++) {
    parts.push(keys[i]!);
    pushValue(parts, values[i]);
  }
  parts.push('}');
}
