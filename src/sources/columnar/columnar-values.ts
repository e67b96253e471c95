/**
 * Values read from columnar files (Parquet, Avro) written as JSON text, exactly: a 64-bit
 * integer as its digits, a decimal as its numeral, a time as an ISO 8601 text in UTC with every
 * fraction digit the file holds, nested lists and records as JSON arrays and objects. Pure: the
 * readers hand their decoded values here and the JSON readers downstream read the text as they
 * read any JSON line (docs/json-reading.md).
 */
import { jsonString as stringText } from '../csv-columns.js';
import { decodeUtf8Marking } from '../text-decoder.js';

/** A number whose exact numeral is known (a DECIMAL): written as that numeral. */
export class ExactNumeral {
  constructor(readonly text: string) {}
}

/** JSON text already checked to be JSON by its writer (a Parquet JSON column): written as it is. */
export class RawJson {
  constructor(readonly text: string) {}
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
 * The JSON text of one decoded value. A float JSON cannot write (NaN, infinities) is written as
 * its name in a string, never silently as null; bytes as UTF-8 text (see textOfBytes).
 * Recursive: a columnar schema's nesting is its own, bounded by the file.
 */
export function writeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return stringText(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : `"${String(value)}"`;
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return 'null';
    case 'object':
      return writeObjectValue(value);
    default:
      return stringText(String(value));
  }
}

function writeObjectValue(value: object | null): string {
  if (value === null) return 'null';
  if (value instanceof ExactNumeral || value instanceof RawJson) return value.text;
  if (value instanceof Uint8Array) return stringText(textOfBytes(value));
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'null' : `"${value.toISOString()}"`;
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    let out = '[';
    const items = value as ArrayLike<unknown>;
    for (let i = 0; i < items.length; i++) out += (i === 0 ? '' : ',') + writeValue(items[i]);
    return out + ']';
  }
  if (value instanceof Map) return writeEntries([...value.entries()].map(([k, v]) => [String(k), v]));
  return writeEntries(Object.entries(value));
}

function writeEntries(entries: ReadonlyArray<readonly [string, unknown]>): string {
  let out = '{';
  for (const [key, item] of entries) out += (out.length === 1 ? '' : ',') + stringText(key) + ':' + writeValue(item);
  return out + '}';
}

/** One row (its values in column order) as a JSON object line: every column, null ones too. */
export function writeRow(names: readonly string[], values: readonly unknown[]): string {
  let out = '{';
  for (let i = 0; i < names.length; i++) out += (i === 0 ? '' : ',') + stringText(names[i]!) + ':' + writeValue(values[i]);
  return out + '}';
}
