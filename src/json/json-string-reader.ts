/**
 * Reads one JSON string literal for the careful parser: escapes decoded, control characters
 * refused as JSON.parse refuses them, and a note of whether any UTF-16 surrogate (raw or
 * escaped) was met, so only those strings are checked for lone ones.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A string read, or why not: `end` is the offset just past the closing quote (or of the fault). */
export interface StringRead {
  value: string;
  end: number;
  /** True when the string holds a surrogate code unit (raw or from `\u`): check it is paired. */
  surrogates: boolean;
  /** Set when the literal is not valid JSON; `end` is then where the fault is. */
  error?: string;
}

const SIMPLE_ESCAPES: Record<number, string> = {
  0x22: '"',
  0x5c: '\\',
  0x2f: '/',
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
};

function isSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdfff;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

function fault(end: number, error: string): StringRead {
  return { value: '', end, surrogates: false, error };
}

/** Reads the literal whose opening quote is at `start`. */
export function readJsonString(text: string, start: number): StringRead {
  let surrogates = false;
  for (let i = start + 1; ; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return { value: text.slice(start + 1, i), end: i + 1, surrogates };
    if (c === BACKSLASH) return readEscaped(text, start, i, surrogates);
    if (!(c >= 0x20)) return i >= text.length ? fault(i, 'unterminated') : fault(i, 'control');
    if (c >= 0xd800 && c <= 0xdfff) surrogates = true;
  }
}

/** The rest of a literal from its first backslash at `from`: decoded piece by piece. */
function readEscaped(text: string, start: number, from: number, surrogates: boolean): StringRead {
  let out = text.slice(start + 1, from);
  let runStart = from;
  for (let i = from; ; ) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return { value: out + text.slice(runStart, i), end: i + 1, surrogates };
    if (c === BACKSLASH) {
      out += text.slice(runStart, i);
      const e = text.charCodeAt(i + 1);
      const simple = SIMPLE_ESCAPES[e];
      if (simple !== undefined) {
        out += simple;
        i += 2;
      } else if (e === 0x75 /* u */) {
        const code = (hexValue(text.charCodeAt(i + 2)) << 12) | (hexValue(text.charCodeAt(i + 3)) << 8) | (hexValue(text.charCodeAt(i + 4)) << 4) | hexValue(text.charCodeAt(i + 5));
        if (code < 0) return fault(i, 'unicode');
        if (isSurrogate(code)) surrogates = true;
        out += String.fromCharCode(code);
        i += 6;
      } else {
        return i + 1 >= text.length ? fault(i + 1, 'unterminated') : fault(i, 'escape');
      }
      runStart = i;
      continue;
    }
    if (!(c >= 0x20)) return i >= text.length ? fault(i, 'unterminated') : fault(i, 'control');
    if (isSurrogate(c)) surrogates = true;
    i++;
  }
}

/** True when every surrogate in `value` is half of a pair (String.prototype.isWellFormed, Node 20). */
export function isWellFormed(value: string): boolean {
  return (value as unknown as { isWellFormed(): boolean }).isWellFormed();
}
