/**
 * Where records end, found in streamed text without reading the records: the piece splitter
 * cuts files there so several workers can read one file. For CSV the rules are exactly the
 * tokenizer's (csv-tokenizer.ts): a quote opens a quoted field only at the start of a field (so
 * `5" screen` in an unquoted cell is just text), doubled quotes stay inside, junk after a
 * closing quote makes the rest of the line part of the bad record, and a line end outside
 * quotes ends a record. For JSON lines every line end does. Quotes and line ends are found with
 * indexOf, never character by character.
 */
import { isBlank, type CsvSyntax } from './csv-tokenizer.js';
import { nextLineEnd } from './line-ends.js';

const QUOTE = 34;
const LF = 10;
const CR = 13;

export interface ChunkEnds {
  /** Offset just past the first and the last record end in the chunk, -1 when none. 0 is possible (a `\r\n` split before the chunk). */
  first: number;
  last: number;
}

export interface RecordBoundaries {
  /** Scans the next chunk of text, carrying the state from the chunk before. */
  scan(text: string): ChunkEnds;
  /** True while the text seen ends inside a quoted field. */
  readonly inQuotes: boolean;
  /** Starts again at the start of a record. */
  reset(): void;
}

const enum State {
  FieldStart,
  Unquoted,
  Quoted,
  /** A quote ended the last chunk, inside a quoted field: a doubled quote or the closing one. */
  QuotePending,
  AfterQuote,
  /** After junk following a closing quote: the record runs to the line end. */
  SkipLine,
  /** A `\r` ended the last chunk and a record: a `\n` may follow. */
  CrPending,
}

/** Every line end (`\n`, `\r\n`, a lone `\r`) ends a record. */
export class LineBoundaries implements RecordBoundaries {
  private crPending = false;
  readonly inQuotes = false;

  scan(s: string): ChunkEnds {
    const n = s.length;
    let start = -1;
    if (this.crPending && n > 0) {
      this.crPending = false;
      start = s.charCodeAt(0) === LF ? 1 : 0;
    }
    let end = Math.max(s.lastIndexOf('\n'), s.lastIndexOf('\r'));
    if (end === n - 1 && s.charCodeAt(end) === CR) {
      // Whether a `\n` follows is known with the next chunk. A line end before it is one of its own.
      this.crPending = true;
      end = n < 2 ? -1 : Math.max(s.lastIndexOf('\n', n - 2), s.lastIndexOf('\r', n - 2));
    }
    if (end === -1 || end + 1 <= start) return { first: start, last: start };
    const found = nextLineEnd(s, Math.max(start, 0), true);
    const first = start !== -1 ? start : found !== undefined && found.next !== -1 ? found.next : end + 1;
    return { first, last: end + 1 };
  }

  reset(): void {
    this.crPending = false;
  }
}

/** CSV records, by the tokenizer's rules (see the module comment). */
export class CsvBoundaries implements RecordBoundaries {
  private state = State.FieldStart;
  private readonly delimiter: number;
  private readonly trim: boolean;
  // Next LF, CR and quote in the chunk being scanned at or after where they were looked for.
  private lf = -1;
  private cr = -1;
  private quote = -1;

  constructor(syntax: CsvSyntax = {}) {
    this.delimiter = (syntax.delimiter ?? ',').charCodeAt(0);
    this.trim = syntax.trim ?? false;
  }

  get inQuotes(): boolean {
    return this.state === State.Quoted || this.state === State.QuotePending;
  }

  reset(): void {
    this.state = State.FieldStart;
  }

  scan(s: string): ChunkEnds {
    const ends: ChunkEnds = { first: -1, last: -1 };
    this.lf = this.cr = this.quote = -1;
    const n = s.length;
    let i = 0;
    if (this.state === State.CrPending && n > 0) {
      i = s.charCodeAt(0) === LF ? 1 : 0;
      this.recordEnd(ends, i);
    }
    while (i < n) i = this.step(s, i, ends);
    return ends;
  }

  private recordEnd(ends: ChunkEnds, at: number): void {
    if (ends.first === -1) ends.first = at;
    ends.last = at;
    this.state = State.FieldStart;
  }

  /** The record ends at the line end at `e`; returns where the next one starts. */
  private endLine(s: string, e: number, ends: ChunkEnds): number {
    if (s.charCodeAt(e) === LF) {
      this.recordEnd(ends, e + 1);
      return e + 1;
    }
    if (e + 1 >= s.length) {
      this.state = State.CrPending;
      return s.length;
    }
    const next = s.charCodeAt(e + 1) === LF ? e + 2 : e + 1;
    this.recordEnd(ends, next);
    return next;
  }

  private nextLineEnd(s: string, from: number): number {
    if (this.lf !== Infinity && this.lf < from) this.lf = positionOf(s, '\n', from);
    if (this.cr !== Infinity && this.cr < from) this.cr = positionOf(s, '\r', from);
    return Math.min(this.lf, this.cr, s.length);
  }

  private nextQuote(s: string, from: number): number {
    if (this.quote !== Infinity && this.quote < from) this.quote = positionOf(s, '"', from);
    return this.quote;
  }

  private skipBlanks(s: string, i: number): number {
    if (this.trim) while (i < s.length && isBlank(s.charCodeAt(i), this.delimiter)) i++;
    return i;
  }

  /** A quote at `q` inside an unquoted stretch opens a field only right after a delimiter (and blanks). */
  private opensField(s: string, q: number): boolean {
    let k = q - 1;
    if (this.trim) while (k >= 0 && isBlank(s.charCodeAt(k), this.delimiter)) k--;
    return k >= 0 && s.charCodeAt(k) === this.delimiter;
  }

  /** One step of the state machine from `i`; returns where the next step starts. */
  private step(s: string, i: number, ends: ChunkEnds): number {
    const n = s.length;
    switch (this.state) {
      case State.FieldStart: {
        i = this.skipBlanks(s, i);
        if (i >= n) return n;
        const c = s.charCodeAt(i);
        if (c === QUOTE) this.state = State.Quoted;
        else if (c === LF || c === CR) return this.endLine(s, i, ends);
        else if (c !== this.delimiter) {
          this.state = State.Unquoted;
          return i;
        }
        return i + 1;
      }
      case State.Unquoted: {
        const e = this.nextLineEnd(s, i);
        for (let q = this.nextQuote(s, i); q < e; q = this.nextQuote(s, q + 1)) {
          if (this.opensField(s, q)) {
            this.state = State.Quoted;
            return q + 1;
          }
        }
        if (e < n) return this.endLine(s, e, ends);
        // The chunk ends in this line: right after a delimiter, the next chunk starts a field.
        if (this.opensField(s, n)) this.state = State.FieldStart;
        return n;
      }
      case State.Quoted: {
        // Doubled quotes stay inside: on to the closing one, in one step.
        for (let q = this.nextQuote(s, i); ; q = this.nextQuote(s, q + 2)) {
          if (q >= n) return n;
          if (q + 1 >= n) {
            this.state = State.QuotePending;
            return n;
          }
          if (s.charCodeAt(q + 1) !== QUOTE) {
            this.state = State.AfterQuote;
            return q + 1;
          }
        }
      }
      case State.QuotePending:
        if (s.charCodeAt(i) === QUOTE) {
          this.state = State.Quoted;
          return i + 1;
        }
        this.state = State.AfterQuote;
        return i;
      case State.AfterQuote: {
        i = this.skipBlanks(s, i);
        if (i >= n) return n;
        const c = s.charCodeAt(i);
        if (c === this.delimiter) {
          this.state = State.FieldStart;
          return i + 1;
        }
        if (c === LF || c === CR) return this.endLine(s, i, ends);
        this.state = State.SkipLine;
        return i;
      }
      default: {
        // SkipLine (CrPending is handled before the first step of a chunk).
        const e = this.nextLineEnd(s, i);
        return e < n ? this.endLine(s, e, ends) : n;
      }
    }
  }
}

/** The offset of the next `search` from `from`, or Infinity when there is none. */
function positionOf(text: string, search: string, from: number): number {
  const at = text.indexOf(search, from);
  return at === -1 ? Infinity : at;
}
