/**
 * Whether what JSON.parse made of a text may differ from what the careful parser makes of it.
 * Checked on the parsed value, which costs less than any scan of the text (measured: a walk of a
 * Mixpanel-shaped event is about a twentieth of its JSON.parse; a regular expression for digit
 * runs cost half as much as JSON.parse itself). It may differ when the value holds:
 * - a number beyond ±(2^53 - 1), or not finite: an integer JSON.parse rounded, or 1e400 made
 *   Infinity (a float such as 1e20 is sent to the careful parser too, which only costs time);
 * - nesting deeper than the limit;
 * - with `checkStrings`, a string or key that is not well-formed UTF-16 (a lone surrogate).
 * A `__proto__` key needs nothing: JSON.parse makes it an own property, as the careful parser does.
 */
import { isWellFormed } from './json-string-reader.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Deeper values are left to the careful parser, which needs no call stack. */
const MAX_WALK_DEPTH = 1000;

/** A `\u` escape of a surrogate: only texts holding one can decode to a lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89abcdefABCDEF]/;

/** True when `text` holds an escaped surrogate (its strings must then be checked). */
export function hasSurrogateEscape(text: string): boolean {
  return text.indexOf('\\u') !== -1 && SURROGATE_ESCAPE.test(text);
}

/** True when `value` (from JSON.parse, at nesting level `depth`) may read differently carefully. */
export function mayDiffer(value: unknown, depth: number, maxDepth: number, checkStrings: boolean): boolean {
  switch (typeof value) {
    case 'number':
      return !(value <= MAX_SAFE && value >= -MAX_SAFE);
    case 'string':
      return checkStrings && !isWellFormed(value);
    case 'object':
      if (value === null) return false;
      if (depth > maxDepth || depth > MAX_WALK_DEPTH) return true;
      return Array.isArray(value) ? arrayMayDiffer(value, depth, maxDepth, checkStrings) : objectMayDiffer(value as Record<string, unknown>, depth, maxDepth, checkStrings);
    default:
      return false;
  }
}

function arrayMayDiffer(array: readonly unknown[], depth: number, maxDepth: number, checkStrings: boolean): boolean {
  for (let i = 0; i < array.length; i++) if (mayDiffer(array[i], depth + 1, maxDepth, checkStrings)) return true;
  return false;
}

function objectMayDiffer(object: Record<string, unknown>, depth: number, maxDepth: number, checkStrings: boolean): boolean {
  for (const key in object) {
    if (checkStrings && !isWellFormed(key)) return true;
    if (mayDiffer(object[key], depth + 1, maxDepth, checkStrings)) return true;
  }
  return false;
}
