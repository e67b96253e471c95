/**
 * Cuts a file's text into pieces that end on a record boundary, so several workers can stage
 * one file at once. Record ends are found by the tokenizer's own rules (record-boundaries.ts):
 * CSV records may hold quoted newlines, JSON lines may not. Each piece knows the line number it
 * starts on, so rejects keep their exact lines. A file holding one JSON array is cut between
 * its elements instead (array-pieces.ts).
 *
 * No record is ever held whole beyond MAX_RECORD_CHARS: a longer one cannot be an event
 * (PostHog drops events over about 1 MB), so only its head is kept and its bytes counted while
 * the rest streams past, and it becomes a `too_large` reject. Memory and time stay those of
 * reading the bytes, whatever the size of a line.
 *
 * Every piece but a JSON array's says where the text after it starts (its `end`): a read
 * records that point with the piece, and an interrupted read is resumed there by a splitter
 * made with `resume`.
 */
import { InputError } from '../errors.js';
import { problem } from '../events/reject-reasons.js';
import type { CsvSyntax } from '../sources/csv-tokenizer.js';
import { countLineEnds, countLineEndsIn, endsInCr, headOf, nextLineEnd } from '../sources/line-ends.js';
import { CsvBoundaries, LineBoundaries, type RecordBoundaries } from '../sources/record-boundaries.js';
import { ArrayPieces } from './array-pieces.js';
import { count } from '../util/format.js';
import { largeRecord, REJECT_HEAD_CHARS, type PieceEnd, type PieceReject, type TextPiece } from './text-piece.js';

export { pieceLength, pieceText, type PieceEnd, type TextPiece } from './text-piece.js';

/** `array`: a JSON file holding one array of events, found per file (see jsonLayoutOf). */
export type TextLayout = 'csv' | 'lines' | 'array';

/** A record longer than this (UTF-16 units, so more than as many bytes) is a `too_large` reject. */
export const MAX_RECORD_CHARS = 1024 * 1024;

/** Where a resumed read goes on: the point a piece ended at (see TextPiece.end). */
export interface SplitterResume {
  /** The decoded text already staged, in UTF-16 units; the text pushed starts after it. */
  chars: number;
  /** The line the text pushed starts on. */
  line: number;
  /** CSV: the header, read before; null when no piece was written yet (the text is then the whole file's). */
  header: string | null;
  /** The staged text ended with `\r`: a `\n` first in the text pushed belongs to that line end. */
  afterCr: boolean;
}

export interface PieceSplitterOptions extends CsvSyntax {
  /** The file as the user named it, for messages. */
  name?: string;
  /** Goes on after the pieces of an interrupted read. */
  resume?: SplitterResume;
  /** Piece size to aim for, in UTF-16 units. Default 1 Mi. */
  targetChars?: number;
  /** Longest record read, in UTF-16 units. Default MAX_RECORD_CHARS. */
  maxRecordChars?: number;
}

/** A place in the pending text: chunk index and the offset just past a record end in it. */
interface Place {
  chunk: number;
  at: number;
}

/** A record too long to keep, being skipped to its end. */
interface Skipping {
  line: number;
  head: string;
  bytes: number;
  /** Line ends inside the record before the skip began (quoted ones in CSV). */
  lineEnds: number;
}

/**
 * Text arrives in chunks and is scanned once, chunk by chunk: appending each chunk to one
 * growing string made every scan flatten (copy) that string again, which cost more than the
 * scan itself. A piece is handed on as its chunks, never joined (see TextPiece).
 */
export class PieceSplitter {
  private chunks: string[] = [];
  private pendingChars = 0;
  /** The last record end in the pending text. */
  private lastSafe: Place | undefined;
  /** Length of the record being read (text after the last record end). */
  private tailChars = 0;
  private nextLine = 1;
  /** Text pushed that is no longer pending: in pieces, the header, skipped, or a dropped `\n` (UTF-16 units). */
  private consumedChars = 0;
  private skipping: Skipping | undefined;
  /** A record over the bound that ended in the text just added (it never grew past the bound unended). */
  private longEnded: { start: Place | undefined; end: Place } | undefined;
  /** A record ended with a lone `\r` at the end of a chunk: a `\n` first in the next one is part of it. */
  private dropLeadingLf = false;
  private readonly boundaries: RecordBoundaries;
  private readonly targetChars: number;
  private readonly maxRecordChars: number;
  private readonly array: ArrayPieces | undefined;
  /** CSV only: the header record's text including its line end, once seen. */
  header: string | undefined;
  private headerPending: boolean;
  private readonly syntax: CsvSyntax;
  private readonly name: string;

  constructor(
    private readonly layout: TextLayout,
    options: PieceSplitterOptions = {},
  ) {
    this.syntax = { delimiter: options.delimiter, trim: options.trim };
    this.name = options.name ?? 'the file';
    this.targetChars = options.targetChars ?? 1024 * 1024;
    this.maxRecordChars = options.maxRecordChars ?? MAX_RECORD_CHARS;
    this.headerPending = layout === 'csv';
    this.boundaries = layout === 'csv' ? new CsvBoundaries(this.syntax) : new LineBoundaries();
    this.array = layout === 'array' ? new ArrayPieces(this.targetChars, this.maxRecordChars) : undefined;
    const resume = options.resume;
    if (resume !== undefined) {
      this.consumedChars = resume.chars;
      this.nextLine = resume.line;
      this.dropLeadingLf = resume.afterCr;
      if (layout === 'csv' && resume.header !== null) {
        this.header = resume.header;
        this.headerPending = false;
      }
    }
  }

  /**
   * Text pushed so far that no later piece can start before (UTF-16 units from the start of
   * the file): the text of a record being skipped counts as soon as it is seen.
   */
  get consumed(): number {
    return this.consumedChars;
  }

  /** Adds text; returns the pieces that are complete. */
  push(text: string): TextPiece[] {
    if (this.array) return this.array.push(text);
    // A long record is found when it spans texts: longer texts are taken in parts.
    if (text.length > this.maxRecordChars) {
      const pieces: TextPiece[] = [];
      for (let at = 0; at < text.length; ) {
        const part = headOf(text.slice(at, at + this.maxRecordChars), this.maxRecordChars);
        pieces.push(...this.pushPart(part));
        at += part.length;
      }
      return pieces;
    }
    return this.pushPart(text);
  }

  private pushPart(text: string): TextPiece[] {
    const pieces: TextPiece[] = [];
    if (this.dropLeadingLf && text.length > 0) {
      this.dropLeadingLf = false;
      if (text.charCodeAt(0) === 10) {
        text = text.slice(1);
        this.consumedChars++;
      }
    }
    if (this.skipping) text = this.skip(text, pieces);
    if (text.length > 0) this.append(text);
    if (this.headerPending) this.takeHeader();
    // A long record may end in text scanned again too (after the header, or a record rejected).
    while (!this.headerPending) {
      if (this.longEnded !== undefined) this.rejectEnded(pieces);
      else if (this.pendingChars >= this.targetChars && this.lastSafe !== undefined) pieces.push(this.cut(this.lastSafe));
      else if (this.tailChars > this.maxRecordChars) this.overflow(pieces);
      else break;
    }
    return pieces;
  }

  /** The rest of the text, as a last piece. */
  end(): TextPiece[] {
    if (this.array) return this.array.end();
    const pieces: TextPiece[] = [];
    if (this.skipping) pieces.push(this.rejectSkipped());
    const rest = this.takeAll();
    if (this.headerPending && rest.trim() !== '') {
      this.header = /[\r\n]$/.test(rest) ? rest : `${rest}\n`;
      this.nextLine += countLineEnds(this.header);
      this.consumedChars += rest.length;
      return pieces;
    }
    if (rest.length > 0) {
      const firstLine = this.nextLine;
      this.nextLine += countLineEnds(rest);
      this.consumedChars += rest.length;
      pieces.push({ texts: [rest], firstLine, end: this.endHere() });
    }
    return pieces;
  }

  private append(text: string): void {
    this.chunks.push(text);
    this.pendingChars += text.length;
    const ends = this.boundaries.scan(text);
    if (ends.last === -1) {
      this.tailChars += text.length;
      return;
    }
    if (this.tailChars + ends.first > this.maxRecordChars) this.longEnded = { start: this.lastSafe, end: { chunk: this.chunks.length - 1, at: ends.first } };
    this.tailChars = text.length - ends.last;
    this.lastSafe = { chunk: this.chunks.length - 1, at: ends.last };
  }

  private takeAll(): string {
    const all = this.chunks.join('');
    this.chunks = [];
    this.pendingChars = 0;
    this.lastSafe = undefined;
    this.tailChars = 0;
    return all;
  }

  /** Scans `text` again from the start of a record. */
  private rescan(text: string): void {
    this.boundaries.reset();
    if (text.length > 0) this.append(text);
  }

  /** The header is the first record that is not blank (a blank line, or only spaces when trimming). */
  private takeHeader(): void {
    if (this.lastSafe === undefined) {
      if (this.pendingChars > this.maxRecordChars) {
        throw new InputError(`${this.name}: the header row is longer than ${count(this.maxRecordChars)} characters (is it really a CSV file?)`);
      }
      return;
    }
    const s = this.takeAll();
    let from = /^[\r\n\ufeff]*/.exec(s)![0].length;
    let header: string;
    for (;;) {
      const ends = new CsvBoundaries(this.syntax).scan(from === 0 ? s : s.slice(from));
      if (ends.first === -1) {
        this.rescan(s);
        return;
      }
      const end = from + ends.first;
      if (!this.syntax.trim || s.slice(from, end).trim() !== '') {
        header = s.slice(0, end);
        break;
      }
      from = end;
    }
    this.header = header;
    this.nextLine += countLineEnds(header);
    this.consumedChars += header.length;
    this.headerPending = false;
    this.rescan(s.slice(header.length));
  }

  /** The pending text up to `place` as a piece; the rest stays pending. */
  private cut(place: Place): TextPiece {
    const texts = this.chunks.slice(0, place.chunk);
    const last = this.chunks[place.chunk]!;
    if (place.at > 0) texts.push(last.slice(0, place.at));
    const rest = last.slice(place.at);
    this.chunks = rest.length > 0 ? [rest, ...this.chunks.slice(place.chunk + 1)] : this.chunks.slice(place.chunk + 1);
    this.pendingChars = this.chunks.reduce((n, c) => n + c.length, 0);
    // Nothing after the last record end is a record end.
    this.lastSafe = undefined;
    const firstLine = this.nextLine;
    this.nextLine += countLineEndsIn(texts);
    for (const text of texts) this.consumedChars += text.length;
    return { texts, firstLine, end: this.endHere() };
  }

  /**
   * The record being read has passed the bound: the records before it become a piece, and the
   * record is skipped to its end. In CSV, a record still inside quotes after some line ends is
   * most likely an unclosed quote: its first line is rejected and reading starts again on the
   * next line, as the tokenizer does with an unclosed quote at the end of a file.
   */
  private overflow(pieces: TextPiece[]): void {
    if (this.lastSafe !== undefined) {
      const before = this.cut(this.lastSafe);
      if (before.texts.length > 0) pieces.push(before);
    }
    const inQuotes = this.boundaries.inQuotes;
    const record = this.takeAll();
    const lineEnds = countLineEnds(record);
    if (this.layout === 'csv' && inQuotes && lineEnds > 0) {
      const first = nextLineEnd(record, 0, true)!;
      // A `\r` last in the text ends the line; a `\n` next belongs to it.
      const next = first.next === -1 ? record.length : first.next;
      const message = `a quoted field is still open after ${count(this.maxRecordChars)} characters (an unclosed quote?); reading goes on at the next line`;
      const line = this.nextLine;
      this.nextLine++;
      this.consumedChars += next;
      pieces.push(this.rejectPiece({ line, raw: headOf(record.slice(0, first.at), REJECT_HEAD_CHARS), problem: problem('bad_csv', '', message) }));
      this.dropLeadingLf = first.next === -1;
      this.rescan(record.slice(next));
      return;
    }
    this.consumedChars += record.length;
    this.skipping = { line: this.nextLine, head: headOf(record, REJECT_HEAD_CHARS), bytes: Buffer.byteLength(record), lineEnds };
    this.boundaries.reset();
    if (endsInCr(record)) {
      // The record's line ended with this `\r`: it is over already.
      this.skipping.bytes -= 1;
      this.skipping.lineEnds -= 1;
      pieces.push(this.rejectSkipped());
      this.dropLeadingLf = true;
    }
  }

  /** Offset of `place` in the pending text. */
  private offsetOf(place: Place): number {
    let offset = place.at;
    for (let i = 0; i < place.chunk; i++) offset += this.chunks[i]!.length;
    return offset;
  }

  /** Rejects the long record that ended in the last text; the records around it are read. */
  private rejectEnded(pieces: TextPiece[]): void {
    const { start, end } = this.longEnded!;
    this.longEnded = undefined;
    const from = start === undefined ? 0 : this.offsetOf(start);
    const to = this.offsetOf(end);
    const all = this.takeAll();
    if (from > 0) {
      const firstLine = this.nextLine;
      this.nextLine += countLineEnds(all, 0, from);
      this.consumedChars += from;
      pieces.push({ texts: [all.slice(0, from)], firstLine, end: this.endHere() });
    }
    const record = all.slice(from, to);
    const body = record.replace(/(?:\r\n|\r|\n)$/, '');
    const line = this.nextLine;
    this.nextLine += countLineEnds(record);
    this.consumedChars += record.length;
    pieces.push(this.rejectPiece(largeRecord(line, headOf(body, REJECT_HEAD_CHARS), Buffer.byteLength(body), this.what())));
    this.rescan(all.slice(to));
  }

  private what(): string {
    return this.layout === 'csv' ? 'record' : 'line';
  }

  /** Skips the long record's text up to its line end; returns the text after it. */
  private skip(text: string, pieces: TextPiece[]): string {
    const skipping = this.skipping!;
    const end = nextLineEnd(text, 0, true);
    if (skipping.head.length < REJECT_HEAD_CHARS) skipping.head = headOf(skipping.head + text.slice(0, end?.at ?? text.length), REJECT_HEAD_CHARS);
    if (end === undefined || end.next === -1) {
      const upTo = end === undefined ? text.length : end.at;
      skipping.bytes += Buffer.byteLength(upTo === text.length ? text : text.slice(0, upTo));
      this.consumedChars += text.length;
      if (end !== undefined) {
        pieces.push(this.rejectSkipped());
        this.dropLeadingLf = true;
      }
      return '';
    }
    skipping.bytes += Buffer.byteLength(text.slice(0, end.at));
    this.consumedChars += end.next;
    pieces.push(this.rejectSkipped());
    return text.slice(end.next);
  }

  private rejectSkipped(): TextPiece {
    const { line, head, bytes, lineEnds } = this.skipping!;
    this.skipping = undefined;
    this.nextLine = line + lineEnds + 1;
    return this.rejectPiece(largeRecord(line, head, bytes, this.what()));
  }

  /** Where the text after the piece being made starts (call once its text is consumed). */
  private endHere(): PieceEnd {
    return { chars: this.consumedChars, line: this.nextLine };
  }

  /** A piece of one row rejected unread, ending where the text consumed so far ends. */
  private rejectPiece(reject: PieceReject): TextPiece {
    return { texts: [], firstLine: reject.line, rejects: [reject], end: this.endHere() };
  }
}
