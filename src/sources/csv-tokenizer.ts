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
const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;

type Step =
  | { type: 'record'; fields: string[]; end: number; next: number; newlines: number }
  | { type: 'problem'; message: string; at: number }
  | { type: 'more' };

/** A space or a tab that trimming drops: never the delimiter itself (a tab, in TSV). */
export function isBlank(c: number, delimiter: number): boolean {
  return (c === SPACE || c === TAB) && c !== delimiter;
}

/** An unquoted value without the spaces and tabs around it (it holds no delimiter). */
function trimBlanks(value: string): string {
  const last = value.length - 1;
  return last >= 0 && (isBlank(value.charCodeAt(0), -1) || isBlank(value.charCodeAt(last), -1)) ? value.replace(/^[ \t]+|[ \t]+$/g, '') : value;
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

  /** Parses the record starting at `start`, or asks for more input. */
  private parseRecord(s: string, start: number, eof: boolean): Step {
    const fields: string[] = [];
    const n = s.length;
    let i = start;
    let newlines = 0;
    // The next LF and CR ahead, found once per line: unquoted fields then cost one indexOf each.
    let lf = -2;
    let cr = -2;
    for (;;) {
      let f = i;
      if (this.trim) while (f < n && isBlank(s.charCodeAt(f), this.delimiter)) f++;
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
        newlines += countLineEnds(s, f, q);
        fields.push(escaped ? value.replaceAll('""', '"') : value);
        i = q + 1;
        if (this.trim) while (i < n && isBlank(s.charCodeAt(i), this.delimiter)) i++;
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
      if (cr !== -1 && cr < i) cr = s.indexOf('\r', i);
      const lineEnd = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      const stop = lineEnd === -1 ? n : lineEnd;
      const delimiter = s.indexOf(this.delimiterText, i);
      const j = delimiter !== -1 && delimiter < stop ? delimiter : stop;
      if (j >= n && !eof) return { type: 'more' };
      const value = s.slice(i, j);
      fields.push(this.trim ? trimBlanks(value) : value);
      if (j === stop) return this.endAt(fields, s, j, newlines, eof);
      i = j + 1;
    }
  }
}
