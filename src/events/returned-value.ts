/**
 * What a --transform module may put into an event: values JSON can hold exactly, as a source
 * row's JSON reader would have made them (null, booleans, finite numbers, BigInts of up to 64
 * bits, well-formed strings, arrays and plain objects). Anything else is refused with its
 * path, never turned into something else on the way in: a Date, a Map or NaN would otherwise
 * become a string, `{}` or null without a word. An `undefined` member is left out, as JSON
 * leaves it out: that is how a transform deletes a property.
 */
import { MAX_UINT64, MIN_INT64 } from '../json/json-numbers.js';
import { isWellFormed } from '../json/json-string-reader.js';
import { SQLITE_MAX_JSON_DEPTH } from '../json/json-depth.js';

/** What is wrong with the value at `path`, or undefined when it is a JSON value. */
export function returnedValueProblem(value: unknown, path: string, depth = 0): string | undefined {
  switch (typeof value) {
    case 'string':
      return isWellFormed(value) ? undefined : `${path} holds a lone UTF-16 surrogate (half of a pair), which PostHog refuses`;
    case 'number':
      return Number.isFinite(value) ? undefined : `${path} is ${String(value)}, which JSON cannot hold`;
    case 'bigint':
      return value >= MIN_INT64 && value <= MAX_UINT64 ? undefined : `${path} is an integer beyond 64 bits, which PostHog cannot keep`;
    case 'boolean':
      return undefined;
    case 'object':
      if (value === null) return undefined;
      if (depth >= SQLITE_MAX_JSON_DEPTH) return `${path} nests more than ${SQLITE_MAX_JSON_DEPTH} levels deep (or refers to itself)`;
      return Array.isArray(value) ? arrayProblem(value, path, depth) : objectProblem(value, path, depth);
    default:
      return `${path} is ${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}, which JSON cannot hold`;
  }
}

function arrayProblem(array: readonly unknown[], path: string, depth: number): string | undefined {
  for (let i = 0; i < array.length; i++) {
    // A hole or undefined in an array would be written as null: refused rather than changed.
    const problem = returnedValueProblem(array[i], `${path}[${i}]`, depth + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function objectProblem(object: object, path: string, depth: number): string | undefined {
  const proto = Object.getPrototypeOf(object) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    const name = (object.constructor as { name?: string } | undefined)?.name ?? 'object';
    return `${path} is a ${name}, not a plain object${name === 'Date' ? ' (return date.toISOString())' : ''}`;
  }
  for (const key of Object.keys(object)) {
    const child = (object as Record<string, unknown>)[key];
    if (child === undefined) continue;
    if (!isWellFormed(key)) return `${path} has a key holding a lone UTF-16 surrogate, which PostHog refuses`;
    const problem = returnedValueProblem(child, `${path}.${key}`, depth + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
