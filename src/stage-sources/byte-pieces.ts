/**
 * Pieces of a UTF-8 JSON-lines file cut from its bytes: the thread that reads a piece decodes
 * it, so this thread (which also writes every piece) neither decodes the file nor copies its
 * text to the workers (measured: those were a third of its own work on JSON lines). A line end
 * byte is never part of a multi-byte character, so a piece of whole lines decodes on its own
 * exactly as in the file's text.
 *
 * What a read records stays what the text path records (piece-splitter.ts): the line after each
 * piece, the text read up to there in UTF-16 units, and the SHA-256 of that text as UTF-8, which
 * for valid UTF-8 are the bytes themselves (a byte that is not valid is hashed as the text path
 * hashes its mark). The piece's own UTF-16 length is counted where it is decoded, so a cut
 * says only how many units it adds beyond its bytes (see ByteCut).
 *
 * A line of more than MAX_RECORD_CHARS bytes may be too large to read, which is decided in
 * UTF-16 units: from its start on, the file is decoded here and cut by the text path's splitter,
 * so such lines are treated exactly as there.
 */
import { isUtf8 } from 'node:buffer';
import { createHash, type Hash } from 'node:crypto';
import { CARRIAGE_RETURN, LINE_FEED } from '../sources/line-ends.js';
import { createChunkDecoder, decodeUtf8Marking, utf8Ranges, type ChunkDecoder } from '../sources/text-decoder.js';
import { MAX_RECORD_CHARS, PieceSplitter, type TextPiece } from './piece-splitter.js';
import { ArrivingText, TextProgress } from './text-progress.js';

const LF = LINE_FEED;
const CR = CARRIAGE_RETURN;

/** A piece cut, and where the read stands once it is written. */
export interface ByteCut {
  piece: TextPiece;
  /** The line the text after the piece starts on. */
  line: number;
  /**
   * UTF-16 units the read moves on by with this piece, besides its bytes' (counted by the
   * reader): the text of a piece cut from text, or of lines skipped unread.
   */
  chars: number;
  /** `sha256:<hex>` of the file's text up to the piece's end; null when not hashed. */
  fingerprint: string | null;
  /** The file's bytes up to the piece's end (after a byte-order mark). */
  bytes: number;
}

export interface BytePiecesOptions {
  /** The file as the user named it, for messages. */
  name: string;
  /** Hash the text for the points a read may be resumed at (files, not streams). */
  hashed: boolean;
  /** Piece size to aim for, in bytes. Default 1 MiB. */
  targetBytes?: number;
  /** Longest line read, in UTF-16 units. Default MAX_RECORD_CHARS. */
  maxRecordChars?: number;
}

/** Where the first line end in `bytes` ends (just past it), or -1; `afterCr`: the byte before was a `\r`. */
function firstLineEnd(bytes: Uint8Array, afterCr: boolean): number {
  if (afterCr) return bytes[0] === LF ? 1 : 0;
  const lf = bytes.indexOf(LF);
  const cr = bytes.indexOf(CR);
  if (cr === -1 || (lf !== -1 && lf < cr)) return lf === -1 ? -1 : lf + 1;
  if (cr + 1 < bytes.length) return bytes[cr + 1] === LF ? cr + 2 : cr + 1;
  return -1;
}

/** Where the last line end in `bytes` known to be whole ends, or -1 (a `\r` last may be half of `\r\n`). */
function lastLineEnd(bytes: Uint8Array, afterCr: boolean): number {
  let end = bytes.lastIndexOf(LF) + 1 || -1;
  let cr = bytes.lastIndexOf(CR);
  if (cr === bytes.length - 1) cr = bytes.length < 2 ? -1 : bytes.lastIndexOf(CR, bytes.length - 2);
  if (cr !== -1 && bytes[cr + 1] !== LF) end = Math.max(end, cr + 1);
  if (end === -1 && afterCr) end = bytes[0] === LF ? 1 : 0;
  return end;
}

/** Line ends in a piece of whole lines: `\n`, `\r\n` and a lone `\r` (one last is whole: the piece was cut after it). */
export function countLineEndBytes(bytes: Uint8Array): number {
  let count = 0;
  for (let i = bytes.indexOf(LF); i !== -1; i = bytes.indexOf(LF, i + 1)) count++;
  for (let i = bytes.indexOf(CR); i !== -1; i = bytes.indexOf(CR, i + 1)) if (bytes[i + 1] !== LF) count++;
  return count;
}

/** The text a piece's bytes decode to, as the file's decoder makes it (bytes that are not valid marked). */
export function decodedText(bytes: Uint8Array, from: number, to: number, valid: boolean): string {
  return valid ? Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('utf8') : decodeUtf8Marking(bytes, from, to);
}

/** Text handed to a reader at a time: small enough to stay out of V8's large-object space. */
const SLICE_BYTES = 64 * 1024;

/** Where a slice of `bytes` from `from` may end: after a line end, else before a character's first byte. */
function sliceEnd(bytes: Uint8Array, from: number): number {
  const limit = from + SLICE_BYTES;
  if (limit >= bytes.length) return bytes.length;
  const lf = bytes.lastIndexOf(LF, limit - 1);
  if (lf >= from) return lf + 1;
  let end = limit;
  // Never inside a character: a byte 10xxxxxx continues one.
  while (end > from + 1 && (bytes[end]! & 0xc0) === 0x80) end--;
  return end;
}

/**
 * A byte piece as the texts its reader reads, in slices of at most 64 KiB that decode on their
 * own; `valid` is false when some bytes were not UTF-8 (their rows are then looked at), `chars`
 * the text's length in UTF-16 units.
 */
export function pieceTexts(bytes: Uint8Array): { texts: string[]; valid: boolean; chars: number } {
  const valid = isUtf8(bytes);
  const texts: string[] = [];
  let chars = 0;
  for (let from = 0; from < bytes.length; ) {
    const to = sliceEnd(bytes, from);
    const text = decodedText(bytes, from, to, valid);
    texts.push(text);
    chars += text.length;
    from = to;
  }
  return { texts, valid, chars };
}

/** The text path, from the start of a long line to the end of the file. */
interface TextMode {
  decoder: ChunkDecoder;
  splitter: PieceSplitter;
  arriving: ArrivingText;
  /** Where the last piece cut from text ended (UTF-16 units from the start of this mode). */
  chars: number;
}

export class BytePieces {
  private chunks: Uint8Array[] = [];
  private pendingBytes = 0;
  /** Pending bytes up to the last line end known to be whole. */
  private safeBytes = 0;
  /** Bytes cut into pieces so far. */
  private cutBytes = 0;
  /** The pending bytes end with `\r` (whether `\n` follows is known with the next bytes). */
  private endsInCr = false;
  private nextLine: number;
  private readonly hash: Hash | undefined;
  private readonly targetBytes: number;
  private readonly maxRecordChars: number;
  private text: TextMode | undefined;

  constructor(private readonly options: BytePiecesOptions) {
    this.nextLine = 1;
    this.hash = options.hashed ? createHash('sha256') : undefined;
    this.targetBytes = options.targetBytes ?? 1024 * 1024;
    this.maxRecordChars = options.maxRecordChars ?? MAX_RECORD_CHARS;
  }

  /** Adds bytes; returns the pieces that are complete. */
  push(bytes: Uint8Array): ByteCut[] {
    const cuts: ByteCut[] = [];
    if (this.text !== undefined) {
      this.pushText(this.text.decoder.decode(bytes), cuts);
      return cuts;
    }
    if (bytes.length === 0) return cuts;
    const base = this.pendingBytes;
    const afterCr = this.endsInCr;
    this.chunks.push(bytes);
    this.pendingBytes += bytes.length;
    this.endsInCr = bytes[bytes.length - 1] === CR;
    // Bytes longer than the bound may hold a whole line over it (reads are 64 KiB: never, in practice).
    if (bytes.length > this.maxRecordChars) {
      this.toText(cuts);
      return cuts;
    }
    // Otherwise only a line begun before these bytes can have grown past the bound.
    if (this.pendingBytes - this.safeBytes > this.maxRecordChars) {
      const first = firstLineEnd(bytes, afterCr);
      if (first === -1 || base + first - this.safeBytes > this.maxRecordChars) {
        this.toText(cuts);
        return cuts;
      }
    }
    const last = lastLineEnd(bytes, afterCr);
    if (last !== -1) this.safeBytes = base + last;
    if (this.pendingBytes >= this.targetBytes && this.safeBytes > 0) cuts.push(this.cut(this.safeBytes));
    if (this.pendingBytes - this.safeBytes > this.maxRecordChars) this.toText(cuts);
    return cuts;
  }

  /** The rest, as the last pieces. */
  end(): ByteCut[] {
    const cuts: ByteCut[] = [];
    if (this.text !== undefined) {
      this.pushText(this.text.decoder.end(), cuts);
      for (const piece of this.text.splitter.end()) cuts.push(this.textCut(piece));
      return cuts;
    }
    if (this.pendingBytes > 0) cuts.push(this.cut(this.pendingBytes));
    return cuts;
  }

  /** The first `length` pending bytes (whole lines) as a piece. */
  private cut(length: number): ByteCut {
    const bytes = new Uint8Array(length);
    let at = 0;
    while (at < length) {
      const chunk = this.chunks[0]!;
      const take = Math.min(chunk.length, length - at);
      bytes.set(take === chunk.length ? chunk : chunk.subarray(0, take), at);
      at += take;
      if (take === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(take);
    }
    this.pendingBytes -= length;
    this.safeBytes -= length;
    this.cutBytes += length;
    const firstLine = this.nextLine;
    this.nextLine += countLineEndBytes(bytes);
    let fingerprint: string | null = null;
    if (this.hash !== undefined) {
      // The text as the text path hashes it: valid bytes as they are, a bad byte's mark as UTF-8 writes it.
      utf8Ranges(
        bytes,
        0,
        length,
        (from, to) => this.hash!.update(bytes.subarray(from, to)),
        (text) => this.hash!.update(text, 'utf8'),
      );
      fingerprint = `sha256:${this.hash.copy().digest('hex')}`;
    }
    return { piece: { texts: [], bytes, firstLine }, line: this.nextLine, chars: 0, fingerprint, bytes: this.cutBytes };
  }

  /** From the start of a line that may be too long on, the file is read as text (see the module comment). */
  private toText(cuts: ByteCut[]): void {
    if (this.safeBytes > 0) cuts.push(this.cut(this.safeBytes));
    const tracker = new TextProgress(this.hash ?? createHash('sha256'));
    const splitter = new PieceSplitter('lines', {
      name: this.options.name,
      targetChars: this.targetBytes,
      maxRecordChars: this.maxRecordChars,
      resume: { chars: 0, line: this.nextLine, header: null, afterCr: false },
    });
    this.text = { decoder: createChunkDecoder('utf-8'), splitter, arriving: new ArrivingText(tracker), chars: 0 };
    const rest = this.chunks;
    this.chunks = [];
    this.pendingBytes = 0;
    for (const chunk of rest) this.pushText(this.text.decoder.decode(chunk), cuts);
  }

  private pushText(text: string, cuts: ByteCut[]): void {
    const mode = this.text!;
    if (this.hash !== undefined) mode.arriving.add(text);
    for (const piece of mode.splitter.push(text)) cuts.push(this.textCut(piece));
    // Text the splitter is done with (a long line skipped) is hashed now, not held.
    if (this.hash !== undefined) mode.arriving.hashTo(mode.splitter.consumed);
  }

  private textCut(piece: TextPiece): ByteCut {
    const mode = this.text!;
    const end = piece.end!;
    let fingerprint: string | null = null;
    if (this.hash !== undefined) {
      mode.arriving.hashTo(end.chars);
      fingerprint = mode.arriving.tracker.fingerprint();
    }
    const chars = end.chars - mode.chars;
    mode.chars = end.chars;
    return { piece, line: end.line, chars, fingerprint, bytes: this.cutBytes + mode.arriving.tracker.bytes };
  }
}
