/**
 * A streaming RFC 4180 tokenizer that knows where every record starts. csv-parse 6 counts a
 * quoted CRLF as two lines and loses the LF of CRLF in its raw text, and `file:line` in every
 * reject is a promise of this tool, so we parse ourselves: quoted commas, quoted newlines,
 * doubled quotes, CRLF or LF endings, blank lines skipped. A malformed record becomes a problem
 * and parsing resumes on the next line, so one bad quote never takes the good rows with it.
 */

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

export interface CsvTokenizerOptions {
  /** A record longer than this (in UTF-16 units) is a problem: bounds memory on a stray quote. Default 4 Mi. */
  maxRecordChars?: number;
}

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

type Step =
  | { type: 'record'; fields: string[]; end: number; next: number; newlines: number }
  | { type: 'problem'; message: string; at: number }
  | { type: 'more' };

function countNewlines(s: string, from: number, to: number): number {
  let count = 0;
  for (let i = s.indexOf('\n', from); i !== -1 && i < to; i = s.indexOf('\n', i + 1)) count++;
  return count;
}

export class CsvTokenizer {
  private buffer = '';
  private line = 1;
  private started = false;
  /** Dropping input up to the next line end, after a bad record. */
  private skipping = false;
  private readonly maxRecordChars: number;

  constructor(options: CsvTokenizerOptions = {}) {
    this.maxRecordChars = options.maxRecordChars ?? 4 * 1024 * 1024;
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
    let pos = this.skipping ? this.skipRest(s, 0) : 0;
    while (pos < s.length) {
      const step = this.parseRecord(s, pos, eof);
      if (step.type === 'more') {
        if (s.length - pos <= this.maxRecordChars) break;
        out.push({ line: this.line, message: `record is longer than ${this.maxRecordChars} characters (an unclosed quote?)`, raw: s.slice(pos, pos + 200) });
        pos = this.skipRest(s, pos);
        continue;
      }
      if (step.type === 'problem') {
        const lineEnd = s.indexOf('\n', step.at);
        out.push({ line: this.line, message: step.message, raw: s.slice(pos, lineEnd === -1 ? s.length : lineEnd).replace(/\r$/, '') });
        pos = this.skipRest(s, pos, step.at);
        continue;
      }
      const blank = step.fields.length === 1 && step.fields[0] === '' && step.end === pos;
      if (!blank) out.push({ line: this.line, fields: step.fields, raw: s.slice(pos, step.end) });
      this.line += step.newlines;
      pos = step.next;
    }
    this.buffer = pos >= s.length ? '' : s.slice(pos);
  }

  /**
   * Skips a bad record: to the start of the line after `from`, counting the lines passed. When
   * that line end has not arrived yet, the rest is dropped as it comes (memory stays bounded).
   */
  private skipRest(s: string, pos: number, from = pos): number {
    const nl = s.indexOf('\n', from);
    const next = nl === -1 ? s.length : nl + 1;
    this.line += countNewlines(s, pos, next);
    this.skipping = nl === -1;
    return next;
  }

  /** Parses the record starting at `start`, or asks for more input. */
  private parseRecord(s: string, start: number, eof: boolean): Step {
    const fields: string[] = [];
    const n = s.length;
    let i = start;
    let newlines = 0;
    // The line end ahead, found once per line: unquoted fields then cost one indexOf each.
    let lineEnd = -2;
    for (;;) {
      if (i < n && s.charCodeAt(i) === QUOTE) {
        let escaped = false;
        let q = s.indexOf('"', i + 1);
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
        const value = s.slice(i + 1, q);
        newlines += countNewlines(s, i, q);
        fields.push(escaped ? value.replaceAll('""', '"') : value);
        i = q + 1;
        if (i >= n) return { type: 'record', fields, end: n, next: n, newlines: newlines + 1 };
        const c = s.charCodeAt(i);
        if (c === COMMA) { i++; continue; }
        if (c === LF) return { type: 'record', fields, end: i, next: i + 1, newlines: newlines + 1 };
        if (c === CR) {
          if (i + 1 >= n && !eof) return { type: 'more' };
          if (i + 1 >= n || s.charCodeAt(i + 1) === LF) return { type: 'record', fields, end: i, next: i + 2, newlines: newlines + 1 };
        }
        return { type: 'problem', message: `unexpected ${JSON.stringify(s[i])} after a closing quote (a quote inside a field must be doubled)`, at: i };
      }
      if (lineEnd !== -1 && lineEnd < i) lineEnd = s.indexOf('\n', i);
      const stop = lineEnd === -1 ? n : lineEnd;
      const comma = s.indexOf(',', i);
      const j = comma !== -1 && comma < stop ? comma : stop;
      if (j >= n && !eof) return { type: 'more' };
      const atLf = j < n && s.charCodeAt(j) === LF;
      const end = (atLf || j >= n) && j > i && s.charCodeAt(j - 1) === CR ? j - 1 : j;
      fields.push(s.slice(i, end));
      if (j >= n) return { type: 'record', fields, end, next: n, newlines: newlines + 1 };
      if (atLf) return { type: 'record', fields, end, next: j + 1, newlines: newlines + 1 };
      i = j + 1;
    }
  }
}
