/**
 * The JSON reader every JSON source shares: a text read exactly as written. Nearly every text
 * is read by the native JSON.parse, whose value is then checked for anything JSON.parse may
 * have read differently (json-hazards.ts); those texts, and every text JSON.parse refuses (for a
 * located message), are read again by the careful parser.
 */
import { parseJsonCarefully } from './careful-json-parser.js';
import { CAPTURE_JSON_DEPTH_LIMIT } from '../posthog/limits.js';
import { hasSurrogateEscape, mayDiffer } from './json-hazards.js';
import { isWellFormed } from './json-string-reader.js';
import type { JsonParseResult, JsonReadOptions, JsonValue } from './json-value.js';

/**
 * Reads one JSON text. Integers beyond 2^53 within 64 bits are BigInts, wider ones strings of
 * their digits; out-of-range numbers, nesting deeper than `maxDepth` (128) and lone surrogates
 * are problems (number_out_of_range, too_deep, invalid_unicode), syntax errors bad_json. The
 * top-level value may be anything: whether it must be an object is the caller's business.
 */
export function parseJson(text: string, options: JsonReadOptions = {}): JsonParseResult {
  if (options.wellFormedText !== true && !isWellFormed(text)) return parseJsonCarefully(text, options);
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return parseJsonCarefully(text, options);
  }
  if (mayDiffer(value, options.maxDepth ?? CAPTURE_JSON_DEPTH_LIMIT, hasSurrogateEscape(text))) return parseJsonCarefully(text, options);
  return { ok: true, value };
}

/**
 * The value of JSON text this tool wrote (staged properties), read exactly: big integers kept,
 * at any depth, without the checks for what a source may hold. Throws on text that is not JSON.
 */
export function parseStagedJson(text: string): JsonValue {
  const read = parseJson(text, { maxDepth: Infinity, wellFormedText: true });
  if (!read.ok) throw new SyntaxError(read.problem.message);
  return read.value;
}
