/**
 * A byte-by-byte pass over a request's JSON text for what PostHog's parser (Rust's serde_json)
 * refuses and `JSON.parse` accepts: nesting of 128 levels, lone UTF-16 surrogate escapes
 * (`"\ud800"`), numbers out of range (`1e400`). It also notes where each event's text starts
 * and ends and how many keys it has as written, so a field given twice (JSON.parse keeps the
 * last) can be found and an event sized. json-read.ts calls it only when its cheaper checks
 * cannot settle a request.
 *
 * Kept lean all the same: it reads bytes, not a decoded string, and no key but the top
 * object's. Syntax is left to `JSON.parse`: on text that is not JSON this pass may find
 * nothing, and never throws.
 */
import { CAPTURE_JSON_DEPTH_LIMIT } from '../../posthog/limits.js';

/** serde_json counts nesting down from its limit and fails when it reaches 0: level 128 is refused, 127 read. */
export const MAX_JSON_DEPTH = CAPTURE_JSON_DEPTH_LIMIT - 1;

export interface ObjectScan {
  /** The object's bytes are `bytes.subarray(start, end)`. */
  start: number;
  end: number;
  /** Keys as written, duplicates included. */
  keys: number;
}

export interface JsonScan {
  /** The top-level value when it is an object (a batch or one event). */
  top: ObjectScan | undefined;
  /** The objects of the event list: the top-level array, or the top object's `batch`. */
  events: ObjectScan[];
}

export interface JsonScanProblem {
  scanProblem: string;
}

// Roles of a container, decided by where it sits.
const OTHER = 0;
const TOP = 1;
const EVENT_LIST = 2;
const EVENT = 3;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LOWER_U = 0x75;

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
const isNumberByte = (c: number): boolean => isDigit(c) || c === 0x2d || c === 0x2b || c === 0x2e || (c | 0x20) === 0x65;

function hexAt(b: Uint8Array, at: number): number {
  let code = 0;
  for (let k = at; k < at + 4; k++) {
    const c = b[k] ?? 0;
    if (!isHex(c)) return -1;
    code = code * 16 + (isDigit(c) ? c - 0x30 : (c | 0x20) - 0x57);
  }
  return code;
}

/** For a `\uXXXX` at `at`: a lone surrogate's problem, or how many bytes a valid pair takes. */
function surrogateAt(b: Uint8Array, at: number): string | number {
  const code = hexAt(b, at + 2);
  if (code < 0xd800 || code > 0xdfff) return 0;
  if (code >= 0xdc00) return 'lone trailing surrogate in hex escape';
  const next = b[at + 6] === BACKSLASH && b[at + 7] === LOWER_U ? hexAt(b, at + 8) : -1;
  if (next < 0xdc00 || next > 0xdfff) return 'lone leading surrogate in hex escape';
  return 12;
}

interface ScanState {
  readonly b: Uint8Array;
  readonly roles: Uint8Array;
  readonly objects: Uint8Array;
  readonly owners: Array<ObjectScan | undefined>;
  topKey: string | undefined;
  top: ObjectScan | undefined;
  readonly events: ObjectScan[];
}

function latin1(b: Uint8Array, start: number, end: number): string {
  return Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('latin1');
}

/** Opens the container at `at`, `depth` deep: its role, and the event or top object it is. */
function open(state: ScanState, at: number, depth: number, isObject: boolean): void {
  let role = OTHER;
  let owner: ObjectScan | undefined;
  if (depth === 1) role = isObject ? TOP : EVENT_LIST;
  else if (depth === 2 && !isObject && state.topKey === 'batch') role = EVENT_LIST;
  else if (isObject && state.roles[depth - 1] === EVENT_LIST) role = EVENT;
  if (role === TOP) owner = state.top = { start: at, end: state.b.length, keys: 0 };
  else if (role === EVENT) state.events.push((owner = { start: at, end: state.b.length, keys: 0 }));
  else if (role === EVENT_LIST) state.events.length = 0;
  state.roles[depth] = role;
  state.objects[depth] = isObject ? 1 : 0;
  state.owners[depth] = owner;
}

/** The index past the number at `start`, or its problem. */
function number(b: Uint8Array, start: number): number | string {
  let end = start + 1;
  let exponent = false;
  for (let c = b[end] ?? 0; isNumberByte(c); c = b[++end] ?? 0) if ((c | 0x20) === 0x65) exponent = true;
  // Only an exponent or more than 308 digits can reach past the largest double.
  if (!exponent && end - start <= 308) return end;
  return Number.isFinite(Number(latin1(b, start, end))) ? end : 'number out of range';
}

/** The index of the closing quote of the string opening at `start - 1`, or a problem. */
function stringEnd(b: Uint8Array, start: number, checkSurrogates: boolean): number | string {
  const n = b.length;
  let j = start;
  for (let c = b[j]; c !== QUOTE && j < n; c = b[++j]) {
    if (c !== BACKSLASH) continue;
    if (checkSurrogates && b[j + 1] === LOWER_U) {
      const surrogate = surrogateAt(b, j);
      if (typeof surrogate === 'string') return surrogate;
      // Past the trailing half of a pair too, so it is not read as a lone one.
      if (surrogate > 0) j += surrogate - 2;
    }
    j++;
  }
  return j;
}

function scan(state: ScanState, checkSurrogates: boolean): JsonScan | JsonScanProblem {
  const b = state.b;
  const n = b.length;
  let i = 0;
  let depth = 0;
  let expectKey = false;
  while (i < n) {
    const c = b[i]!;
    if (c === QUOTE) {
      const end = stringEnd(b, i + 1, checkSurrogates);
      if (typeof end === 'string') return { scanProblem: end };
      if (expectKey) {
        const owner = state.owners[depth];
        if (owner !== undefined) owner.keys++;
        if (depth === 1) state.topKey = latin1(b, i + 1, end);
        expectKey = false;
      }
      i = end + 1;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return { scanProblem: `recursion limit exceeded at byte ${i + 1}` };
      expectKey = c === 0x7b;
      open(state, i++, depth, expectKey);
    } else if (c === 0x7d || c === 0x5d) {
      const owner = state.owners[depth];
      if (owner !== undefined) owner.end = i + 1;
      if (depth > 0) depth--;
      expectKey = false;
      i++;
    } else if (c === 0x2d || isDigit(c)) {
      const end = number(b, i);
      if (typeof end === 'string') return { scanProblem: end };
      i = end;
    } else {
      if (c === 0x2c) expectKey = state.objects[depth] === 1;
      i++;
    }
  }
  return { top: state.top, events: state.events };
}

const SURROGATE_ESCAPES = [Buffer.from('\\ud'), Buffer.from('\\uD')];

/** Whether the text has a `\ud...` escape at all: only then can it hold a lone surrogate. */
export function mayHoldSurrogateEscapes(bytes: Buffer): boolean {
  return SURROGATE_ESCAPES.some((needle) => bytes.includes(needle));
}

/** Scans the UTF-8 bytes of a JSON text; offsets in the answer are byte offsets. */
export function scanJson(bytes: Buffer): JsonScan | JsonScanProblem {
  const mayHoldSurrogates = mayHoldSurrogateEscapes(bytes);
  const state: ScanState = {
    b: bytes,
    roles: new Uint8Array(MAX_JSON_DEPTH + 2),
    objects: new Uint8Array(MAX_JSON_DEPTH + 2),
    owners: [],
    topKey: undefined,
    top: undefined,
    events: [],
  };
  return scan(state, mayHoldSurrogates);
}
