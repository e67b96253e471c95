/**
 * A range of string keys (from inclusive, to exclusive; either end may be open), compared as
 * PostHog's ClickHouse and the sandbox's SQLite compare strings: byte by byte in UTF-8. A
 * range PostHog finds too slow to read is halved at a key between its ends. Pure.
 */

export interface KeyRange {
  from?: string;
  to?: string;
}

const BASE = 128n;

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The key's first `length` characters as a number, each ASCII code a digit (anything above ASCII counted as 127). */
function valueOf(key: string, length: number): bigint {
  const chars = Array.from(key);
  let value = 0n;
  for (let i = 0; i < length; i++) value = value * BASE + BigInt(Math.min(chars[i]?.codePointAt(0) ?? 0, 127));
  return value;
}

function keyOf(value: bigint, length: number): string {
  const digits: number[] = [];
  for (let i = 0; i < length; i++) {
    digits.unshift(Number(value % BASE));
    value /= BASE;
  }
  while (digits.length > 0 && digits[digits.length - 1] === 0) digits.pop();
  // No NUL inside a key written into a query.
  return String.fromCharCode(...digits.map((d) => Math.max(d, 1)));
}

/** A key strictly inside the range near its middle (for keys that are mostly ASCII), or undefined when none is found. */
export function splitPoint(range: KeyRange): string | undefined {
  const from = range.from ?? '';
  const length = Math.max(Array.from(from).length, Array.from(range.to ?? '').length) + 1;
  const low = valueOf(from, length);
  const high = range.to === undefined ? BASE ** BigInt(length) : valueOf(range.to, length);
  const middle = keyOf((low + high) / 2n, length);
  const inside = compareBytes(from, middle) < 0 && (range.to === undefined || compareBytes(middle, range.to) < 0);
  return inside ? middle : undefined;
}

/** The two halves of a range, or undefined when it cannot be cut. */
export function halves(range: KeyRange): [KeyRange, KeyRange] | undefined {
  const at = splitPoint(range);
  return at === undefined
    ? undefined
    : [
        { ...range, to: at },
        { ...range, from: at },
      ];
}
