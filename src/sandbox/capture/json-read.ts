/**
 * Reading a request's JSON as PostHog's parser (serde_json) would, at little more than the cost
 * of `JSON.parse`. After the parse, one walk of the value finds what serde refuses and the parse
 * takes: nesting of 128 levels and numbers out of range. A key given twice cannot be seen in the
 * parsed value, so the walk counts its keys and a quick pass counts the keys as written (at most
 * one per colon after a quote): when both agree, no key was repeated anywhere. Only then is the
 * byte-by-byte scan skipped; it runs when the counts differ, when the text holds surrogate
 * escapes, or when an event's text is needed (sizes, a numeric distinct_id).
 */
import { MAX_JSON_DEPTH, mayHoldSurrogateEscapes, scanJson, type JsonScan } from './json-scan.js';

export interface JsonRead {
  body: unknown;
  /** True when no object anywhere in the text has a key twice. */
  noRepeatedKeys: boolean;
  /**
   * The fewest bytes of JSON text that parse to the body: every UTF-16 unit of a string or key
   * takes at least a byte of text (escapes and UTF-8 take more), a number at least one, and
   * the punctuation is counted. Made by the same walk, to bound events' sizes (event-size.ts).
   */
  leastBytes: number;
  /** The largest `leastBytes` of an object or array `depth` deep (1 to 3; the body is 1). */
  largestAtDepth: readonly number[];
  /** The scan of the text (events' spans and key counts), made on first use. */
  scan(): JsonScan;
}

export interface JsonReadProblem {
  readProblem: string;
}

/** The least text of the value a walk step just went through (see JsonRead.leastBytes). */
let lastBytes = 0;
/** JsonRead.largestAtDepth of the walk under way. */
let largest = [0, 0, 0, 0];

/** Keys in `item` and below it: -1 past the depth limit, -2 for a number out of range. */
function below(item: unknown, depth: number): number {
  if (typeof item === 'object' && item !== null) return walk(item, depth + 1);
  if (typeof item === 'string') {
    lastBytes = item.length + 2;
    return 0;
  }
  lastBytes = typeof item === 'number' ? 1 : item === false ? 5 : 4;
  return typeof item === 'number' && !Number.isFinite(item) ? -2 : 0;
}

function walk(value: object, depth: number): number {
  if (depth > MAX_JSON_DEPTH) return -1;
  let keys = 0;
  // Brackets, and a separator between members (one too many counted when there are any).
  let bytes = 1;
  if (Array.isArray(value)) {
    for (const item of value) {
      const n = below(item, depth);
      if (n < 0) return n;
      keys += n;
      bytes += lastBytes + 1;
    }
  } else {
    const record = value as Record<string, unknown>;
    for (const key in record) {
      const n = below(record[key], depth);
      if (n < 0) return n;
      keys += n + 1;
      bytes += key.length + 4 + lastBytes; // "key": and a separator
    }
  }
  lastBytes = bytes === 1 ? 2 : bytes;
  if (depth < largest.length && lastBytes > largest[depth]!) largest[depth] = lastBytes;
  return keys;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** An upper bound on the keys written: colons whose previous non-space character is a quote. */
function writtenKeysAtMost(text: string): number {
  let count = 0;
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) {
    let before = at - 1;
    while (isSpace(text.charCodeAt(before))) before--;
    if (text.charCodeAt(before) === 0x22) count++;
  }
  return count;
}

export function readJson(bytes: Buffer, text: string): JsonRead | JsonReadProblem {
  let scanned: JsonScan | undefined;
  const scan = (): JsonScan => (scanned ??= scanJson(bytes) as JsonScan);
  // A lone surrogate escape is refused before anything else; only the scan can see one.
  if (mayHoldSurrogateEscapes(bytes)) {
    const result = scanJson(bytes);
    if ('scanProblem' in result) return { readProblem: result.scanProblem };
    scanned = result;
  }
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch (error) {
    return { readProblem: (error as Error).message };
  }
  largest = [0, 0, 0, 0];
  lastBytes = 0;
  let keys = 0;
  if (typeof body === 'object' && body !== null) keys = walk(body, 1);
  else below(body, 0); // its least text only: the shape check refuses a body that is not a container
  if (keys < 0) {
    // The scan says where, in serde's words.
    const result = scanJson(bytes);
    return { readProblem: 'scanProblem' in result ? result.scanProblem : keys === -1 ? 'recursion limit exceeded' : 'number out of range' };
  }
  return { body, noRepeatedKeys: writtenKeysAtMost(text) === keys, leastBytes: lastBytes, largestAtDepth: largest, scan };
}
