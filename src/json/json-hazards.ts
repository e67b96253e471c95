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

/**
 * True when `value` (from JSON.parse) may read differently carefully. Children that are numbers
 * are checked in the loop rather than by a call each: a third faster on Mixpanel-shaped events.
 */
export function mayDiffer(value: unknown, maxDepth: number, checkStrings: boolean): boolean {
  if (typeof value === 'number') return !(value <= MAX_SAFE && value >= -MAX_SAFE);
  if (typeof value === 'string') return checkStrings && !isWellFormed(value);
  if (typeof value !== 'object' || value === null) return false;
  const limit = Math.min(maxDepth, MAX_WALK_DEPTH);
  return checkStrings ? containerWithStringsMayDiffer(value, 1, limit) : containerMayDiffer(value, 1, limit);
}

/** Numbers and depth only; `depth` is the container's own level. */
function containerMayDiffer(container: object, depth: number, limit: number): boolean {
  if (depth > limit) return true;
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      const child: unknown = container[i];
      if (typeof child === 'number') {
        if (!(child <= MAX_SAFE && child >= -MAX_SAFE)) return true;
      } else if (typeof child === 'object' && child !== null && containerMayDiffer(child, depth + 1, limit)) return true;
    }
    return false;
  }
  const object = container as Record<string, unknown>;
  for (const key in object) {
    const child = object[key];
    if (typeof child === 'number') {
      if (!(child <= MAX_SAFE && child >= -MAX_SAFE)) return true;
    } else if (typeof child === 'object' && child !== null && containerMayDiffer(child, depth + 1, limit)) return true;
  }
  return false;
}

/** Numbers, depth, and strings and keys that are not well-formed. */
function containerWithStringsMayDiffer(container: object, depth: number, limit: number): boolean {
  if (depth > limit) return true;
  const array = Array.isArray(container);
  for (const key in container) {
    if (!array && !isWellFormed(key)) return true;
    const child = (container as Record<string, unknown>)[key];
    if (typeof child === 'number') {
      if (!(child <= MAX_SAFE && child >= -MAX_SAFE)) return true;
    } else if (typeof child === 'string') {
      if (!isWellFormed(child)) return true;
    } else if (typeof child === 'object' && child !== null && containerWithStringsMayDiffer(child, depth + 1, limit)) return true;
  }
  return false;
}
