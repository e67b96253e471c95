/**
 * The stored text of a distinct_id, as PostHog's capture makes it: a string as sent; any other
 * JSON value written out the way Rust's serde_json writes it (a number from its source text,
 * never rounded; objects with sorted keys); NUL replaced by U+FFFD; cut at 200 characters.
 */
import { canonicalJson } from '../../json/canonical-json.js';
import { MAX_DISTINCT_ID_CHARS } from '../../posthog/limits.js';

const U64_MAX = 18446744073709551615n;
const I64_MIN = -9223372036854775808n;

/**
 * A JSON number's text as serde_json writes it back: integers that fit 64 bits as written,
 * anything else through a double, shortest digits, `1.0` style (`1e16`, `1.5e-7` past the
 * plain range).
 */
export function serdeNumberText(source: string): string {
  if (/^-?\d+$/.test(source)) {
    const value = BigInt(source);
    if (source === '-0') return '-0.0';
    if (value >= I64_MIN && value <= U64_MAX) return value.toString();
  }
  return doubleText(Number(source));
}

function doubleText(value: number): string {
  if (!Number.isFinite(value)) return 'null';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  // toExponential() without an argument gives the shortest digits that read back the same.
  const [mantissa, exp] = Math.abs(value).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const point = Number(exp) + 1; // the decimal point's place after the first digit
  if (point > 0 && point <= 16) {
    if (digits.length <= point) return `${sign}${digits.padEnd(point, '0')}.0`;
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  if (point <= 0 && point > -5) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  const rest = digits.length > 1 ? `.${digits.slice(1)}` : '';
  return `${sign}${digits[0]}${rest}e${point - 1}`;
}

/** Characters are code points: only a text of more than 200 UTF-16 units can have more. */
function cut(text: string): string {
  return text.length <= MAX_DISTINCT_ID_CHARS ? text : [...text].slice(0, MAX_DISTINCT_ID_CHARS).join('');
}

/**
 * `value` is the parsed distinct_id (not null, not ""); `numberSource` the number's source
 * text when it was a JSON number.
 */
export function distinctIdText(value: unknown, numberSource?: string): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number') text = serdeNumberText(numberSource ?? String(value));
  else if (typeof value === 'object') text = canonicalJson(value);
  else text = String(value);
  return cut(text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text);
}
