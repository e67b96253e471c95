/**
 * A piece of a source file: the text of whole records a worker reads on its own, or the
 * elements of a JSON array, or rows the splitter rejected without reading them.
 */
import { problem, type RowProblem } from '../events/reject-reasons.js';
import { count } from '../util/format.js';

/** A row rejected while the file was cut into pieces (a record too large to read, a broken array). */
export interface PieceReject {
  line: number;
  raw: string;
  problem: RowProblem;
}

export interface TextPiece {
  /**
   * Text of whole records (for CSV, nothing of the header), in the parts it arrived in: never
   * joined into one string, since strings of over 128 KiB live in V8's large-object space,
   * which only a full collection empties, and a million-line file made gigabytes of them.
   * For a JSON array file, one element per text.
   */
  texts: string[];
  /** 1-based line of the file on which the text starts. */
  firstLine: number;
  /** JSON array files: the line each element (each text) starts on. */
  elementLines?: number[];
  /** Rows rejected by the splitter itself, in line order. */
  rejects?: PieceReject[];
  /**
   * Where the text after this piece starts: the decoded text read up to there (UTF-16 units,
   * skipped records and the CSV header included) and its line. What a read records to be
   * resumed at; absent for a JSON array's pieces, whose reads cannot be resumed.
   */
  end?: PieceEnd;
}

export interface PieceEnd {
  chars: number;
  line: number;
}

/** A piece's text as one string (tests, messages). */
export function pieceText(piece: TextPiece): string {
  return piece.texts.join('');
}

/** A piece's length in UTF-16 units. */
export function pieceLength(piece: TextPiece): number {
  let length = 0;
  for (const text of piece.texts) length += text.length;
  return length;
}

/** Characters of a skipped record kept as its raw text. */
export const REJECT_HEAD_CHARS = 200;

/** PostHog drops an event of about 1 MB or more: no row longer than this can become one. */
export const MAX_ROW_BYTES = 1024 * 1024;

/**
 * The reject of a record too large to be an event; `what` names it (line, record, element,
 * row). `unread`: skipped by the splitter without being read (else read, then refused).
 */
export function largeRecord(line: number, head: string, bytes: number, what: string, unread = true): PieceReject {
  const message = `the ${what} is ${count(bytes)} bytes; an event can be at most 1 MiB (PostHog drops larger ones)${unread ? ', so it was skipped unread' : ''}`;
  return { line, raw: head, problem: problem('too_large', '', message) };
}
