/**
 * What can be wrong with one JSON text, in the shape of a row problem (reason, field, message),
 * so a reader can reject the row with it once these reasons are listed in reject-reasons.ts.
 */

export type JsonProblemReason =
  /** Not JSON at all: a syntax error. */
  | 'bad_json'
  /** Nested deeper than PostHog's parser accepts. */
  | 'too_deep'
  /** A number no 64-bit float holds (1e400), or an integer beyond 64 bits when those are refused. */
  | 'number_out_of_range'
  /** A string or key holding a lone UTF-16 surrogate, which PostHog's parser refuses. */
  | 'invalid_unicode';

export interface JsonProblem {
  reason: JsonProblemReason;
  /** JSON path of the value at fault (`properties.items[2].price`), or '' for the whole text. */
  field: string;
  message: string;
  /** Offset in the text (UTF-16 units) where the problem was found. */
  offset: number;
  /** too_deep only: the deepest nesting in the text (the outermost value is level 1). */
  depth?: number;
}

/** A path segment: an object key or an array index. */
export type PathSegment = string | number;

const PLAIN_KEY = /^[A-Za-z_$][\w$]*$/;
const MAX_PATH_CHARS = 200;

/** `properties.items[2]["a key"]`: keys that are not identifiers are written as JSON strings. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
    if (out.length > MAX_PATH_CHARS) return `${out.slice(0, MAX_PATH_CHARS)}...`;
  }
  return out;
}

/**
 * Where `offset` is, for a message: `column 17` on a one-line text, `line 3, column 5` when the
 * text spans lines. `firstLine`, when given, is the file line the text starts on, and every
 * position is then given as a file line.
 */
export function describeOffset(text: string, offset: number, firstLine?: number): string {
  let lineStart = 0;
  let lines = 0;
  for (let nl = text.indexOf('\n'); nl !== -1 && nl < offset; nl = text.indexOf('\n', nl + 1)) {
    lines++;
    lineStart = nl + 1;
  }
  const column = offset - lineStart + 1;
  if (firstLine !== undefined) return `line ${firstLine + lines}, column ${column}`;
  return lines === 0 ? `column ${column}` : `line ${lines + 1}, column ${column}`;
}

/** One character for a message: `'x'`, or `U+0001` for controls and other invisible ones. */
export function describeChar(text: string, offset: number): string {
  if (offset >= text.length) return 'the end of the text';
  const code = text.codePointAt(offset)!;
  if (code <= 0x20 || (code >= 0x7f && code <= 0xa0) || (code >= 0xd800 && code <= 0xdfff)) {
    return `character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `character '${String.fromCodePoint(code)}'`;
}
