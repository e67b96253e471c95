/**
 * A streaming RFC 4180 tokenizer that knows where every record starts. csv-parse 6 counts a
 * quoted CRLF as two lines and loses the LF of CRLF in its raw text, and `file:line` in every
 * reject is a promise of this tool, so we parse ourselves: any one-character delimiter, quoted
 * delimiters, quoted newlines, doubled quotes, LF, CRLF or lone CR line ends, blank lines
 * skipped, and (with `trim`) spaces around unquoted values and around quotes dropped. A
 * malformed record becomes a problem and parsing resumes on the next line, so one bad quote
 * never takes the good rows with it. The piece splitter (csv-boundaries.ts) follows the same
 * rules to cut files between records.
 */
import { countLineEnds, nextLineEnd } from './line-ends.js';

export interface CsvRecord {
  /** 1-based line on which the record starts. */
  line: number;
  fields: string[];
  /** The record's text without its line ending. */
  raw: string;
}

export interface CsvProblem {
  line: number;
  message: string;
  raw: string;
}

export type CsvItem = CsvRecord | CsvProblem;

export interface CsvSyntax {
  /** The field delimiter, one character. Default `,`. */
  delimiter?: string;
  /** Drop spaces and tabs around unquoted values, and before and after a quoted one. Default false. */
  trim?: boolean;
}

export interface CsvTokenizerOptions extends CsvSyntax {
  /** A record longer than this (in UTF-16 units) is a problem: bounds memory on a stray quote. Default 4 Mi. */
  maxRecordChars?: number;
}

const QUOTE = 34;
/** A position past any text (a small integer, unlike Infinity, which slowed the hot loop threefold). */
const NONE = 0x3fffffff;
const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;

type Step = { type: 'record'; fields: string[]; end: number; next: number; newlines: number } | { type: 'problem'; message: string; at: number } | { type: 'more' };

function countLfs(s: string, from: number, to: number): number {
  let count = 0;
  for (let i = s.indexOf('\n', from); i !== -1 && i < to; i = s.indexOf('\n', i + 1)) count++;
  return count;
}

/** A space or a tab that trimming drops: never the delimiter itself (a tab, in TSV). */
export function isBlank(c: number, delimiter: number): boolean {
  return (c === SPACE || c === TAB) && c !== delimiter;
}

export class CsvTokenizer {
  private buffer = '';
  private line = 1;
  private started = false;
  /** Dropping input up to the next line end, after a bad record. */
  private skipping = false;
  /** The last line end taken was a `\r` at the end of the buffer: a `\n` first is part of it. */
  private afterCr = false;
  private readonly maxRecordChars: number;
  private readonly delimiter: number;
  private readonly delimiterText: string;
  private readonly trim: boolean;
  /**
   * The next `\r` in the buffer at or after where it was last looked for (NONE: none).
   * Kept across records: most files have none, and looking again for each record scanned the
   * whole rest of the buffer every time.
   */
  private crAt = -1;

  constructor(options: CsvTokenizerOptions = {}) {
    this.maxRecordChars = options.maxRecordChars ?? 4 * 1024 * 1024;
    this.delimiterText = options.delimiter ?? ',';
    this.delimiter = this.delimiterText.charCodeAt(0);
    this.trim = options.trim ?? false;
  }

  /** Feeds text; complete records are appended to `out`. */
  push(text: string, out: CsvItem[]): void {
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.buffer = this.buffer.length === 0 ? text : this.buffer + text;
    this.drain(false, out);
  }

  /** Signals the end of input; the last records are appended to `out`. */
  end(out: CsvItem[]): void {
    this.drain(true, out);
    this.buffer = '';
  }

  private drain(eof: boolean, out: CsvItem[]): void {
    const s = this.buffer;
    this.crAt = -1;
    let pos = 0;
    if (this.afterCr && s.length > 0) {
      this.afterCr = false;
      if (s.charCodeAt(0) === LF) pos = 1;
    }
    if (this.skipping) pos = this.skipRest(s, pos, pos, eof);
    while (pos < s.length) {
      const step = this.parseRecord(s, pos, eof);
      if (step.type === 'more') {
        if (s.length - pos <= this.maxRecordChars) break;
        out.push({ line: this.line, message: `record is longer than ${this.maxRecordChars} characters (an unclosed quote?)`, raw: s.slice(pos, pos + 200) });
        pos = this.skipRest(s, pos, pos, eof);
        continue;
      }
      if (step.type === 'problem') {
        const end = nextLineEnd(s, step.at, false);
        out.push({ line: this.line, message: step.message, raw: s.slice(pos, end === undefined ? s.length : end.at) });
        pos = this.skipRest(s, pos, step.at, eof);
        continue;
      }
      const raw = s.slice(pos, step.end);
      const blank = step.fields.length === 1 && step.fields[0] === '' && (this.trim ? raw.trim() === '' : raw === '');
      if (!blank) out.push({ line: this.line, fields: step.fields, raw });
      this.line += step.newlines;
      this.afterCr = step.next === s.length && step.next > 0 && s.charCodeAt(step.next - 1) === CR;
      pos = step.next;
    }
    this.buffer = pos >= s.length ? '' : s.slice(pos);
  }

  /**
   * Skips a bad record: to the start of the line after `from`, counting the lines passed. When
   * that line end has not arrived yet, the rest is dropped as it comes (memory stays bounded).
   */
  private skipRest(s: string, pos: number, from: number, eof: boolean): number {
    const end = nextLineEnd(s, from, !eof);
    const next = end === undefined || end.next === -1 ? s.length : end.next;
    this.line += countLineEnds(s, pos, next);
    // No line end yet: drop what comes until one. A lone `\r` last: a `\n` first belongs to it.
    this.skipping = end === undefined;
    this.afterCr = end !== undefined && end.next === -1;
    return next;
  }

  /** The record's end at the line end at `at`; `more` when a `\r` ends the text and input may follow. */
  private endAt(fields: string[], s: string, at: number, newlines: number, eof: boolean): Step {
    if (at >= s.length) return { type: 'record', fields, end: s.length, next: s.length, newlines: newlines + 1 };
    if (s.charCodeAt(at) === LF) return { type: 'record', fields, end: at, next: at + 1, newlines: newlines + 1 };
    if (at + 1 >= s.length) return eof ? { type: 'record', fields, end: at, next: at + 1, newlines: newlines + 1 } : { type: 'more' };
    return { type: 'record', fields, end: at, next: s.charCodeAt(at + 1) === LF ? at + 2 : at + 1, newlines: newlines + 1 };
  }

  /**
   * The next `\r` at or after `from` in the buffer `s`, or NONE. Callers read `crAt` first and
   * call this only when it is behind `from`: as a plain call at every field it kept V8 from
   * optimising the loop, which then ran at half speed.
   */
  private findCr(s: string, from: number): number {
    const at = s.indexOf('\r', from);
    this.crAt = at === -1 ? NONE : at;
    return this.crAt;
  }

  /** Past the spaces and tabs (not the delimiter) from `i`. */
  private skipBlanks(s: string, i: number, n: number): number {
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if ((c !== SPACE && c !== TAB) || c === this.delimiter) return i;
    }
    return i;
  }

  /** `s[from, to)` (an unquoted value, which holds no delimiter) without spaces and tabs around it. */
  private trimmed(s: string, from: number, to: number): string {
    let c = s.charCodeAt(from);
    while (from < to && (c === SPACE || c === TAB)) c = s.charCodeAt(++from);
    c = s.charCodeAt(to - 1);
    while (to > from && (c === SPACE || c === TAB)) c = s.charCodeAt(--to - 1);
    return s.slice(from, to);
  }

  /** Parses the record starting at `start`, or asks for more input. */
  private parseRecord(s: string, start: number, eof: boolean): Step {
    const fields: string[] = [];
    const n = s.length;
    let i = start;
    let newlines = 0;
    // The next line end ahead, found once per line: unquoted fields then cost one indexOf each.
    let lf = -2;
    for (;;) {
      let f = i;
      if (this.trim) f = this.skipBlanks(s, f, n);
      if (f >= n && !eof) return { type: 'more' };
      if (f < n && s.charCodeAt(f) === QUOTE) {
        let escaped = false;
        let q = s.indexOf('"', f + 1);
        for (;;) {
          if (q === -1 || (q + 1 >= n && !eof)) {
            if (!eof) return { type: 'more' };
            return { type: 'problem', message: 'a quoted field is never closed', at: start };
          }
          if (s.charCodeAt(q + 1) === QUOTE) {
            escaped = true;
            q = s.indexOf('"', q + 2);
            continue;
          }
          break;
        }
        const value = s.slice(f + 1, q);
        const crAt = this.crAt >= f ? this.crAt : this.findCr(s, f);
        newlines += crAt < q ? countLineEnds(s, f, q) : countLfs(s, f, q);
        fields.push(escaped ? value.replaceAll('""', '"') : value);
        i = q + 1;
        if (this.trim) i = this.skipBlanks(s, i, n);
        if (i >= n && !eof) return { type: 'more' };
        const c = s.charCodeAt(i);
        if (c === this.delimiter) {
          i++;
          continue;
        }
        if (i >= n || c === LF || c === CR) return this.endAt(fields, s, i, newlines, eof);
        return { type: 'problem', message: `unexpected ${JSON.stringify(s[i])} after a closing quote (a quote inside a field must be doubled)`, at: i };
      }
      if (lf !== -1 && lf < i) lf = s.indexOf('\n', i);
      const cr = this.crAt >= i ? this.crAt : this.findCr(s, i);
      const stop = lf !== -1 && lf < cr ? lf : cr < n ? cr : n;
      const delimiter = s.indexOf(this.delimiterText, i);
      const j = delimiter !== -1 && delimiter < stop ? delimiter : stop;
      if (j >= n && !eof) return { type: 'more' };
      fields.push(this.trim ? this.trimmed(s, i, j) : s.slice(i, j));
      if (j === stop) return this.endAt(fields, s, j, newlines, eof);
      i = j + 1;
    }
  }
}
