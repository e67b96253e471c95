/**
 * JSON numbers kept exact. PostHog's parser (Rust serde_json) keeps integers exact up to 64
 * bits, signed or unsigned; JavaScript numbers only up to 2^53. So an integer beyond 2^53 that
 * fits 64 bits is read as a BigInt (written back with its exact digits), a wider integer as a
 * string of its digits, and everything else as a JavaScript number, as JSON.parse reads it.
 */

/** The smallest signed and the largest unsigned 64-bit integer: PostHog's exact range. */
export const MIN_INT64 = -(2n ** 63n);
export const MAX_UINT64 = 2n ** 64n - 1n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Integers with at most this many digits are always safe JavaScript numbers. */
export const SAFE_DIGITS = 15;

/** What to do with a number JavaScript cannot hold exactly and PostHog would not keep. */
export interface NumberOptions {
  /**
   * A number beyond the range of a 64-bit float (`1e400`, `-1e400`): `reject` (default) reports
   * number_out_of_range, since PostHog refuses the whole request holding one; `string` keeps
   * its source text as a string.
   */
  outOfRangeNumbers?: 'reject' | 'string';
  /**
   * An integer beyond 64 bits (30 digits): `string` (default) keeps its digits as a string;
   * `reject` reports number_out_of_range.
   */
  wideIntegers?: 'string' | 'reject';
}

/** A number's value, or `undefined` when the options refuse it. */
export type NumberValue = number | bigint | string | undefined;

/**
 * The value of a JSON integer's source text (`-?(0|[1-9][0-9]*)`). Safe integers are numbers,
 * other 64-bit ones BigInts, wider ones their text (or undefined when refused).
 */
export function integerValue(text: string, options: NumberOptions): NumberValue {
  const digits = text.charCodeAt(0) === 45 /* - */ ? text.length - 1 : text.length;
  if (digits <= SAFE_DIGITS) return +text;
  const big = BigInt(text);
  if (big >= -MAX_SAFE && big <= MAX_SAFE) return Number(big);
  if (big >= MIN_INT64 && big <= MAX_UINT64) return big;
  return options.wideIntegers === 'reject' ? undefined : text;
}

/**
 * The value of a JSON number with a fraction or an exponent: the JavaScript number, as JSON.parse
 * and PostHog (a 64-bit float) read it; `1.10` is 1.1, and a value too small for a float
 * (`1e-400`) is 0 for both. Beyond the float range, the text or undefined (see NumberOptions).
 */
export function floatValue(text: string, options: NumberOptions): NumberValue {
  const value = +text;
  if (Number.isFinite(value)) return value;
  return options.outOfRangeNumbers === 'string' ? text : undefined;
}

const INTEGER_TEXT = /^-?(?:0|[1-9]\d*)$/;

/**
 * A CSV cell (or any text) that is a JSON integer too big for a JavaScript number but within
 * 64 bits, as a BigInt; undefined otherwise. For type inference of digit cells: `007`, `+5`
 * and 30-digit cells are not numbers.
 */
export function exactIntegerOfText(text: string): bigint | undefined {
  if (text.length <= SAFE_DIGITS || text.length > 21 || !INTEGER_TEXT.test(text)) return undefined;
  const value = integerValue(text, { wideIntegers: 'reject' });
  return typeof value === 'bigint' ? value : undefined;
}

/**
 * A distinct_id value as the exact text PostHog should get: strings as they are, BigInts with
 * all their digits, numbers as JavaScript writes them (`42`, `1.5`). Undefined for anything
 * else (null, booleans, objects), which the caller reports.
 */
export function distinctIdText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}
