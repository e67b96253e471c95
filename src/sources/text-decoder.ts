/**
 * Bytes to text, streamed, in the file's encoding, without ever replacing a bad byte silently.
 * A byte that is not valid in the encoding becomes a lone UTF-16 surrogate in the text (for
 * UTF-8, U+DC80 + the byte, as Python's "surrogateescape"; for other encodings U+DC00): a
 * decoder never makes a lone surrogate from valid input, so the rows holding one are exactly
 * the rows with bad bytes, and each is rejected (invalid_utf8) while the others are staged.
 * A genuine U+FFFD in valid UTF-8 stays what it is. Pure: bytes in, strings out.
 */

import { isUtf8 } from 'node:buffer';

/** Encodings read by their own code here; every other WHATWG label goes through TextDecoder. */
const UTF8 = 'utf-8';
const UTF16LE = 'utf-16le';
const UTF16BE = 'utf-16be';

/** The marker of a byte a legacy decoder could not read (which byte is not known). */
export const UNKNOWN_BYTE_MARK = 0xdc00;
/** UTF-8 bytes that are not valid are marked U+DC80..U+DCFF: U+DC00 + the byte. */
const ESCAPE_BASE = 0xdc00;

/**
 * The WHATWG name of an encoding label (`latin1` is `windows-1252`, `utf8` is `utf-8`), or
 * undefined when TextDecoder does not know it.
 */
export function encodingName(label: string): string | undefined {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return undefined;
  }
}

/** The encoding a byte-order mark names, and the mark's length; undefined without one. */
export function byteOrderMark(head: Uint8Array): { encoding: string; bytes: number } | undefined {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: UTF8, bytes: 3 };
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return { encoding: UTF16LE, bytes: 2 };
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return { encoding: UTF16BE, bytes: 2 };
  return undefined;
}

/** Length of the valid UTF-8 sequence at `i` (lead byte >= 0x80), or 0 (Unicode table 3-7). */
function sequenceLength(bytes: Uint8Array, i: number, end: number): number {
  const b = bytes[i]!;
  let n: number;
  let low = 0x80;
  let high = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) n = 2;
  else if (b >= 0xe0 && b <= 0xef) {
    n = 3;
    if (b === 0xe0) low = 0xa0;
    else if (b === 0xed) high = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    n = 4;
    if (b === 0xf0) low = 0x90;
    else if (b === 0xf4) high = 0x8f;
  } else return 0;
  if (i + n > end) return 0;
  const second = bytes[i + 1]!;
  if (second < low || second > high) return 0;
  for (let k = 2; k < n; k++) {
    const c = bytes[i + k]!;
    if (c < 0x80 || c > 0xbf) return 0;
  }
  return n;
}

function utf8Text(bytes: Uint8Array, from: number, to: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('utf8');
}

/** Below this many bytes, a range is decoded byte by byte rather than split further. */
const MARKING_RUN_BYTES = 2048;

/**
 * Where a range may be split to be decoded in two parts, as near its middle as may be: before a
 * byte that does not continue a character (so no sequence, valid or not, spans the split and
 * both parts decode as the whole does); -1 when there is none near.
 */
function splitPoint(bytes: Uint8Array, from: number, to: number): number {
  for (let at = (from + to) >>> 1, k = 0; k < 4 && at < to; at++, k++) if ((bytes[at]! & 0xc0) !== 0x80) return at;
  return -1;
}

/**
 * The bytes `from`..`to` in order as ranges of valid UTF-8 (`valid`) and the text of the rest,
 * bad bytes marked (`marked`). A long range is split in halves, and a half that is valid UTF-8
 * (nearly all: bad bytes are few) is left to native code; only short ranges holding a bad byte
 * are read byte by byte, in JavaScript.
 */
export function utf8Ranges(bytes: Uint8Array, from: number, to: number, valid: (from: number, to: number) => void, marked: (text: string) => void): void {
  if (isUtf8(bytes.subarray(from, to))) {
    if (to > from) valid(from, to);
    return;
  }
  if (to - from > MARKING_RUN_BYTES) {
    const at = splitPoint(bytes, from, to);
    if (at !== -1) {
      utf8Ranges(bytes, from, at, valid, marked);
      utf8Ranges(bytes, at, to, valid, marked);
      return;
    }
  }
  marked(decodeMarkingBytes(bytes, from, to));
}

/** UTF-8 bytes as text, each byte of an invalid sequence marked U+DC80 + byte (see utf8Ranges). */
export function decodeUtf8Marking(bytes: Uint8Array, from = 0, to = bytes.length): string {
  let out = '';
  utf8Ranges(
    bytes,
    from,
    to,
    (start, end) => (out += utf8Text(bytes, start, end)),
    (text) => (out += text),
  );
  return out;
}

/** The byte-by-byte decoder (see decodeUtf8Marking). */
function decodeMarkingBytes(bytes: Uint8Array, from: number, to: number): string {
  let out = '';
  let run = from;
  for (let i = from; i < to; ) {
    if (bytes[i]! < 0x80) {
      i++;
      continue;
    }
    const n = sequenceLength(bytes, i, to);
    if (n > 0) {
      i += n;
      continue;
    }
    out += utf8Text(bytes, run, i) + String.fromCharCode(ESCAPE_BASE + bytes[i]!);
    run = ++i;
  }
  return out + utf8Text(bytes, run, to);
}

/** Where the last UTF-8 sequence of `bytes` is cut short (to keep for the next chunk), or its length. */
function completeEnd(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let i = n - 1; i >= 0 && i >= n - 4; i--) {
    const b = bytes[i]!;
    if (b >= 0x80 && b <= 0xbf) continue;
    const need = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xc2 && b <= 0xdf ? 2 : 1;
    return n - i < need ? i : n;
  }
  return n;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

export interface ChunkDecoder {
  /** Text of the bytes so far; bytes of a character cut at the chunk's end wait for the next. */
  decode(chunk: Uint8Array): string;
  /** Text of what is left at the end (an incomplete character becomes marked bytes). */
  end(): string;
}

/** UTF-8: Buffer's native decoder, and the marking decoder only for chunks that need it. */
function utf8Decoder(): ChunkDecoder {
  let carry: Uint8Array = new Uint8Array(0);
  return {
    decode(chunk) {
      const bytes = concat(carry, chunk);
      const cut = completeEnd(bytes);
      carry = bytes.slice(cut);
      const text = utf8Text(bytes, 0, cut);
      // Buffer writes U+FFFD for bad bytes: only then is the chunk decoded again, byte by byte.
      return text.indexOf('\ufffd') === -1 ? text : decodeUtf8Marking(bytes, 0, cut);
    },
    end() {
      const rest = carry;
      carry = new Uint8Array(0);
      return rest.length === 0 ? '' : decodeUtf8Marking(rest);
    },
  };
}

/** UTF-16: Buffer keeps lone surrogates as they are, so bad text stays detectable. */
function utf16Decoder(bigEndian: boolean): ChunkDecoder {
  let carry: Uint8Array = new Uint8Array(0);
  const text = (bytes: Uint8Array, to: number): string => {
    const buffer = Buffer.from(bytes.subarray(0, to));
    if (bigEndian) buffer.swap16();
    return buffer.toString('utf16le');
  };
  return {
    decode(chunk) {
      const bytes = concat(carry, chunk);
      let cut = bytes.length - (bytes.length % 2);
      // A pair's first half last waits for its second, so no text ends half a character.
      const last = cut >= 2 ? (bigEndian ? (bytes[cut - 2]! << 8) | bytes[cut - 1]! : (bytes[cut - 1]! << 8) | bytes[cut - 2]!) : 0;
      if (last >= 0xd800 && last <= 0xdbff) cut -= 2;
      carry = bytes.slice(cut);
      return text(bytes, cut);
    },
    end() {
      const rest = carry;
      carry = new Uint8Array(0);
      // A lone first half stays lone (and marks its row); an odd byte is marked.
      return (rest.length >= 2 ? text(rest, 2) : '') + (rest.length % 2 === 1 ? String.fromCharCode(UNKNOWN_BYTE_MARK) : '');
    },
  };
}

/**
 * Other encodings: TextDecoder, whose U+FFFD marks a byte sequence it could not read (no
 * WHATWG single- or multi-byte index maps any bytes to U+FFFD), marked instead.
 */
function legacyDecoder(encoding: string): ChunkDecoder {
  const decoder = new TextDecoder(encoding, { fatal: false, ignoreBOM: true });
  const mark = (text: string): string => (text.indexOf('\ufffd') === -1 ? text : text.replaceAll('\ufffd', String.fromCharCode(UNKNOWN_BYTE_MARK)));
  return {
    decode: (chunk) => mark(decoder.decode(chunk, { stream: true })),
    end: () => mark(decoder.decode()),
  };
}

/** A streaming decoder for a WHATWG encoding name (see encodingName). */
export function createChunkDecoder(encoding: string): ChunkDecoder {
  if (encoding === UTF8) return utf8Decoder();
  if (encoding === UTF16LE || encoding === UTF16BE) return utf16Decoder(encoding === UTF16BE);
  return legacyDecoder(encoding);
}

/** True when `encoding` writes ASCII as single bytes, so a NUL byte means binary content. */
export function isAsciiCompatible(encoding: string): boolean {
  return encoding !== UTF16LE && encoding !== UTF16BE;
}
