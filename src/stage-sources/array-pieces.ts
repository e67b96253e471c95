/**
 * Pieces of a file holding one JSON array: its elements, several to a piece, each with the line
 * it starts on, so workers read them in parallel and rejects name the element's first line. An
 * element too large to be an event is skipped unread (`too_large`); a break in the array's
 * structure (a missing comma or `]`, text after the end) is one `bad_json` reject naming the
 * line, after which nothing more of the file can be read.
 */
import { problem } from '../events/reject-reasons.js';
import { JsonArraySplitter, type ArrayEntry } from '../json/json-array-splitter.js';
import { largeRecord, type PieceReject, type TextPiece } from './text-piece.js';

export class ArrayPieces {
  private readonly splitter: JsonArraySplitter;
  private texts: string[] = [];
  private lines: number[] = [];
  private chars = 0;

  constructor(
    private readonly targetChars: number,
    maxElementChars: number,
  ) {
    this.splitter = new JsonArraySplitter(maxElementChars);
  }

  push(text: string): TextPiece[] {
    const entries: ArrayEntry[] = [];
    this.splitter.push(text, entries);
    return this.collect(entries, false);
  }

  end(): TextPiece[] {
    const entries: ArrayEntry[] = [];
    this.splitter.end(entries);
    return this.collect(entries, true);
  }

  private collect(entries: readonly ArrayEntry[], last: boolean): TextPiece[] {
    const pieces: TextPiece[] = [];
    for (const entry of entries) {
      if ('text' in entry) {
        this.texts.push(entry.text);
        this.lines.push(entry.line);
        this.chars += entry.text.length;
        if (this.chars >= this.targetChars) this.flush(pieces);
        continue;
      }
      this.flush(pieces);
      const reject: PieceReject =
        'error' in entry
          ? { line: entry.line, raw: '', problem: problem('bad_json', '', `the file is not a well-formed JSON array: ${entry.error}; nothing after this point was read`) }
          : largeRecord(entry.line, entry.head, entry.bytes, 'array element');
      pieces.push({ texts: [], firstLine: reject.line, rejects: [reject] });
    }
    if (last) this.flush(pieces);
    return pieces;
  }

  private flush(pieces: TextPiece[]): void {
    if (this.texts.length === 0) return;
    pieces.push({ texts: this.texts, firstLine: this.lines[0]!, elementLines: this.lines });
    this.texts = [];
    this.lines = [];
    this.chars = 0;
  }
}
