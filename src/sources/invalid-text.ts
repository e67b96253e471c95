/**
 * Rows holding bytes that were not valid in the file's encoding. The decoder marks each such
 * byte with a lone UTF-16 surrogate (text-decoder.ts), which no decoder makes from valid input:
 * a row holding one is rejected as invalid_utf8, naming the byte and where it is in the row.
 */
import { problem, type RowProblem } from '../events/reject-reasons.js';
import { UNKNOWN_BYTE_MARK } from './text-decoder.js';

interface WellFormedString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** True when every surrogate in `text` is half of a pair (String.prototype.isWellFormed, Node 20). */
export function isWellFormedText(text: string): boolean {
  return (text as unknown as WellFormedString).isWellFormed();
}

/** `text` with each lone surrogate replaced by U+FFFD, as stored in a reject's raw text. */
export function wellFormed(text: string): string {
  return (text as unknown as WellFormedString).toWellFormed();
}

/** Offset of the first lone surrogate in `text`, or -1. */
function firstLoneSurrogate(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    return i;
  }
  return -1;
}

function hexByte(byte: number): string {
  return `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

/**
 * Why a row holding marked bytes cannot be staged, or undefined when it holds none. `encoding`
 * is the file's (WHATWG name; utf-8 when not given).
 */
export function markedBytesProblem(raw: string, encoding = 'utf-8'): RowProblem | undefined {
  if (isWellFormedText(raw)) return undefined;
  const at = firstLoneSurrogate(raw);
  const code = raw.charCodeAt(at);
  const offset = Buffer.byteLength(raw.slice(0, at));
  let what: string;
  if (encoding === 'utf-8' && code >= 0xdc80 && code <= 0xdcff) what = `byte ${hexByte(code - 0xdc00)} at offset ${offset} of the row is not valid UTF-8`;
  else if (encoding.startsWith('utf-16')) what = `the row holds an unpaired UTF-16 surrogate at character ${at + 1}, which is not valid ${encoding.toUpperCase()}`;
  else if (code === UNKNOWN_BYTE_MARK) what = `bytes at character ${at + 1} of the row are not valid ${encoding}`;
  else what = `the row holds bytes that are not valid ${encoding} at character ${at + 1}`;
  const hint = encoding === 'utf-8' ? ' (is the file in another encoding? see --encoding)' : '';
  return problem('invalid_utf8', '', `${what}${hint}`);
}
