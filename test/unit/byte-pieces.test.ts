import { describe, expect, it } from 'vitest';
import { BytePieces, countLineEndBytes, pieceTexts, type ByteCut } from '../../src/stage-sources/byte-pieces.js';
import { PieceSplitter, type TextPiece } from '../../src/stage-sources/piece-splitter.js';
import { ArrivingText, TextProgress } from '../../src/stage-sources/text-progress.js';
import { createChunkDecoder } from '../../src/sources/text-decoder.js';
import { seededRandom } from '../helpers/random-json.js';

const PARTS = ['a', 'bc', '{"k":1}', 'é', '東', '😀', ' ', '\t'].map((t) => Buffer.from(t));
const BAD = [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98]].map((b) => Buffer.from(b));
const ENDS = ['\n', '\r\n', '\r'].map((t) => Buffer.from(t));

/** Lines of characters of one to four bytes, some bytes not UTF-8, every kind of line end, some lines long. */
function content(random: () => number, maxRecordChars: number): Buffer {
  const parts: Buffer[] = [];
  const lines = 20 + Math.floor(random() * 60);
  for (let i = 0; i < lines; i++) {
    const long = random() < 0.1;
    const length = long ? maxRecordChars - 3 + Math.floor(random() * 12) : Math.floor(random() * 30);
    for (let k = 0; k < length; k++) parts.push(random() < 0.02 ? BAD[Math.floor(random() * BAD.length)]! : PARTS[Math.floor(random() * PARTS.length)]!);
    if (i < lines - 1 || random() < 0.5) parts.push(ENDS[Math.floor(random() * ENDS.length)]!);
  }
  return Buffer.concat(parts);
}

function chunks(random: () => number, bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(random() * 40);
    out.push(bytes.subarray(at, at + size));
    at += size;
  }
  return out;
}

interface Read {
  text: string;
  rejects: unknown[];
  line: number;
  chars: number;
  fingerprint: string | null;
  /** The file's bytes up to the point (where a ranged resume reads on). */
  bytes: number;
}

function rejectsOf(piece: TextPiece): unknown[] {
  return piece.rejects ?? [];
}

/** As a read of the file's text records it (stage-file.ts's text path). */
function asText(parts: readonly Buffer[], targetChars: number, maxRecordChars: number): Read {
  const decoder = createChunkDecoder('utf-8');
  const splitter = new PieceSplitter('lines', { targetChars, maxRecordChars });
  const arriving = new ArrivingText(new TextProgress());
  const read: Read = { text: '', rejects: [], line: 1, chars: 0, fingerprint: null, bytes: 0 };
  const take = (pieces: TextPiece[]): void => {
    for (const piece of pieces) {
      read.text += piece.texts.join('');
      read.rejects.push(...rejectsOf(piece));
      arriving.hashTo(piece.end!.chars);
      Object.assign(read, { line: piece.end!.line, chars: piece.end!.chars, fingerprint: arriving.tracker.fingerprint(), bytes: arriving.tracker.bytes });
    }
  };
  for (const part of parts) {
    const text = decoder.decode(part);
    arriving.add(text);
    take(splitter.push(text));
    arriving.hashTo(splitter.consumed);
  }
  const tail = decoder.end();
  arriving.add(tail);
  take(splitter.push(tail));
  take(splitter.end());
  return read;
}

/** As a read of its bytes records it, the bytes decoded as a reader would. */
function asBytes(parts: readonly Buffer[], targetBytes: number, maxRecordChars: number): Read {
  const pieces = new BytePieces({ name: 'f', hashed: true, targetBytes, maxRecordChars });
  const read: Read = { text: '', rejects: [], line: 1, chars: 0, fingerprint: null, bytes: 0 };
  const take = (cuts: ByteCut[]): void => {
    for (const cut of cuts) {
      const decoded = cut.piece.bytes === undefined ? undefined : pieceTexts(cut.piece.bytes);
      if (cut.piece.bytes !== undefined) expect(cut.piece.firstLine).toBe(read.line);
      read.text += decoded === undefined ? cut.piece.texts.join('') : decoded.texts.join('');
      read.rejects.push(...rejectsOf(cut.piece));
      Object.assign(read, { line: cut.line, chars: read.chars + cut.chars + (decoded?.chars ?? 0), fingerprint: cut.fingerprint, bytes: cut.bytes });
    }
  };
  for (const part of parts) take(pieces.push(part));
  take(pieces.end());
  return read;
}

describe('byte pieces', () => {
  it.each([
    ['\n', 1],
    ['a\r\nb\rc\n', 3],
    ['\r', 1],
    ['\r\r\n\n', 3],
    ['no end', 0],
  ])('%j holds %i line ends', (text, ends) => {
    expect(countLineEndBytes(Buffer.from(text))).toBe(ends);
  });

  it('decode to texts of at most 64 KiB that never cut a character', () => {
    const bytes = Buffer.from('😀'.repeat(40_000) + '\n' + 'x'.repeat(70_000));
    const { texts, valid, chars } = pieceTexts(bytes);
    expect(valid).toBe(true);
    expect(texts.join('')).toBe(bytes.toString('utf8'));
    expect(chars).toBe(bytes.toString('utf8').length);
    for (const text of texts) expect(Buffer.byteLength(text)).toBeLessThanOrEqual(64 * 1024);
  });

  it('record what reading the text records, however the bytes arrive: the text, rejects, last line, length, fingerprint and bytes', () => {
    const random = seededRandom(11);
    for (let round = 0; round < 300; round++) {
      const maxRecordChars = 20 + Math.floor(random() * 40);
      const bytes = content(random, maxRecordChars);
      const parts = chunks(random, bytes);
      const target = 16 + Math.floor(random() * 200);
      const text = asText(parts, target, maxRecordChars);
      expect(asBytes(parts, target, maxRecordChars), `round ${round}`).toEqual(text);
      expect(text.bytes, `round ${round}`).toBe(bytes.length);
    }
  });
});
