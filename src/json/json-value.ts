/**
 * The values a JSON text is read into. Like JSON.parse's, except that an integer beyond 2^53
 * that fits 64 bits is a BigInt and a wider one a string of its digits (json-numbers.ts).
 * Objects are ordinary objects in source order, except that integer-like keys come first (as
 * in every JavaScript object); a `__proto__` key is an own property like any other.
 */
import type { JsonProblem } from './json-problem.js';
import type { NumberOptions } from './json-numbers.js';

export type JsonValue = null | boolean | number | bigint | string | JsonArray | JsonObject;
export type JsonArray = JsonValue[];
export interface JsonObject {
  [key: string]: JsonValue;
}

export type JsonParseResult = { ok: true; value: JsonValue } | { ok: false; problem: JsonProblem };

export interface JsonReadOptions extends NumberOptions {
  /** Deepest nesting accepted; the outermost object or array is level 1. Default 128 (PostHog's). */
  maxDepth?: number;
  /** The file line the text starts on: problem messages then name file lines. */
  firstLine?: number;
  /**
   * The caller vouches that the text is well-formed UTF-16 (decoded from UTF-8 by TextDecoder or
   * Buffer, which never make a lone surrogate), so the raw text is not scanned for one; escaped
   * ones (`\ud800`) are still found. Default false. Saves about a tenth of a JSON.parse.
   */
  wellFormedText?: boolean;
}
