/**
 * A file cut into pieces as it is read, each with the point its read reaches once it is
 * written: from the text (piece-splitter.ts), or, for a fresh read of UTF-8 JSON lines, from
 * the bytes (byte-pieces.ts).
 */
import type { SourceInput } from '../sources/open-input.js';
import { countLineEnds } from '../sources/line-ends.js';
import type { SourceFormat } from '../sources/source-item.js';
import type { PieceProgress } from '../staging/source-reads.js';
import { BytePieces, type ByteCut } from './byte-pieces.js';
import type { PieceSplitter, SplitterResume, TextPiece } from './piece-splitter.js';
import { ArrivingText, type TextProgress } from './text-progress.js';

/** Where a read starts in the file's text: from the top, or after the pieces an interrupted run wrote. */
export interface ReadStart {
  text: AsyncIterable<string>;
  tracker: TextProgress;
  /** False when the read cannot be resumed (a stream, a JSON array): no point is hashed. */
  resumable: boolean;
  /** Resuming: where the text starts, and the CSV header (not in the text). */
  resume?: SplitterResume;
}

/**
 * A piece's point when it is written. With `addChars`, its text length is known only then:
 * the point before, plus this, plus the length of the text the piece's bytes decoded to.
 */
export type CutProgress = PieceProgress & { addChars?: number };

export interface Cut {
  piece: TextPiece;
  progress: CutProgress;
}

/** The last line of a JSON array's piece, for messages (its pieces record no point to resume at). */
function lineAfter(piece: TextPiece): number {
  const lines = piece.elementLines;
  if (lines === undefined || lines.length === 0) return piece.firstLine;
  return lines.at(-1)! + countLineEnds(piece.texts.at(-1)!);
}

/** The point the read reaches once `piece` is written; hashed up to there when it can be resumed. */
function pieceProgress(piece: TextPiece, arriving: ArrivingText | undefined): PieceProgress {
  if (piece.end === undefined || arriving === undefined) return { chars: null, line: piece.end?.line ?? lineAfter(piece), fingerprint: null };
  arriving.hashTo(piece.end.chars);
  return { chars: piece.end.chars, line: piece.end.line, fingerprint: arriving.tracker.fingerprint(), bytes: arriving.tracker.bytes };
}

/** The pieces of the text, cut as it arrives: each batch is what one chunk of text completed. */
async function* textCuts(splitter: PieceSplitter, start: ReadStart): AsyncIterable<Cut[]> {
  const arriving = new ArrivingText(start.tracker);
  const cut = (piece: TextPiece): Cut => ({ piece, progress: pieceProgress(piece, start.resumable ? arriving : undefined) });
  for await (const text of start.text) {
    if (start.resumable) arriving.add(text);
    yield splitter.push(text).map(cut);
    // Text the splitter is done with (a long record skipped) is hashed now, not held.
    if (start.resumable) arriving.hashTo(splitter.consumed);
  }
  yield splitter.end().map(cut);
}

/**
 * The pieces of a UTF-8 JSON-lines file cut from its bytes. A file with a key (a columnar
 * file's, see SourceInput.resumable) is not hashed as it is read: its pieces record the key.
 */
async function* byteCuts(bytes: AsyncIterable<Buffer>, name: string, resumable: boolean, key: string | undefined, targetBytes: number | undefined): AsyncIterable<Cut[]> {
  const pieces = new BytePieces({ name, hashed: resumable && key === undefined, targetBytes });
  const cut = (c: ByteCut): Cut => ({ piece: c.piece, progress: { chars: null, line: c.line, fingerprint: key ?? c.fingerprint, bytes: c.bytes, addChars: c.chars } });
  for await (const chunk of bytes) yield pieces.push(chunk).map(cut);
  yield pieces.end().map(cut);
}

/**
 * The file's pieces: cut from its bytes for a fresh read of UTF-8 JSON lines (unless
 * `bytePieces` is false), from its text otherwise; a resumed read goes on as text, from the
 * point it recorded, which is the same either way.
 */
export function pieceCuts(input: SourceInput, source: SourceFormat, splitter: PieceSplitter, start: ReadStart, bytePieces = true, targetBytes?: number): AsyncIterable<Cut[]> {
  const bytes = bytePieces && source.layout === 'lines' && start.resume === undefined ? input.utf8Bytes : undefined;
  return bytes === undefined ? textCuts(splitter, start) : byteCuts(bytes, input.displayName, start.resumable, input.resumable?.key, targetBytes);
}

/** The point recorded once a piece is written, its text length known (see CutProgress); `chars` is the read's so far. */
export function writtenProgress(progress: CutProgress, chars: { value: number }, textChars: number | undefined, resumable: boolean): PieceProgress {
  if (progress.addChars === undefined) return progress;
  chars.value += progress.addChars + (textChars ?? 0);
  return { chars: resumable ? chars.value : null, line: progress.line, fingerprint: progress.fingerprint, bytes: resumable ? progress.bytes : null };
}
