/**
 * A file holding one JSON array of events, read as a stream of its elements: fed text in chunks
 * cut anywhere (inside strings and escapes too), it gives each top-level element's text and the
 * line it starts on. It holds no more than the element being read; an element longer than the
 * bound is reported and skipped, as LineSplitter does with lines. What does not fit the array's
 * structure (text after its `]`, a missing `]` or comma, brackets that do not match) ends the
 * file with an error naming the line: elements before it are kept.
 */

export interface ArrayElement {
  line: number;
  text: string;
}

export interface OverlongElement {
  line: number;
  overlong: true;
  head: string;
  /** The element's size in UTF-8 bytes. */
  bytes: number;
}

export interface ArrayError {
  line: number;
  error: string;
}

export type ArrayEntry = ArrayElement | OverlongElement | ArrayError;

/** Whether a JSON source file is one array or JSON lines, from its first characters. */
export type JsonLayout = 'array' | 'lines';

/** `array` when the first character after an optional BOM and whitespace is `[`; undefined while only those were seen. */
export function jsonLayoutOf(head: string): JsonLayout | undefined {
  const match = /^\uFEFF?\s*(\S)/.exec(head);
  if (match === null) return undefined;
  return match[1] === '[' ? 'array' : 'lines';
}

const enum State {
  Start,
  FirstElement,
  NextElement,
  Element,
  AfterElement,
  Done,
  Failed,
}

const HEAD_CHARS = 200;

/** The offset of the next `search` from `from`, or Infinity when there is none. */
function positionOf(text: string, search: string, from: number): number {
  const at = text.indexOf(search, from);
  return at === -1 ? Infinity : at;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Ends a scalar element (number, true, false, null): space, a separator or a bracket. */
function endsScalar(c: number): boolean {
  return isSpace(c) || c === 0x2c || c === 0x5d || c === 0x5b || c === 0x7b || c === 0x7d || c === 0x22;
}

export class JsonArraySplitter {
  private state = State.Start;
  private line = 1;
  private first = true;
  /** The element being read: its line, its text from earlier chunks, its open brackets. */
  private elementLine = 0;
  /** Offset in the current chunk where the element being read starts (0 when it began earlier). */
  private elementStart = 0;
  private parts: string[] = [];
  private partsChars = 0;
  private skipping = false;
  private head = '';
  private skippedBytes = 0;
  private readonly brackets: number[] = [];
  private inString = false;
  /** Next backslash and newline in the current chunk at or after where they were looked for (-1: not yet looked for). */
  private nextBackslash = -1;
  private nextNewline = -1;
  private escaped = false;
  private scalar = false;
  private arrayLine = 0;

  /** @param maxElementChars longest element kept, in UTF-16 units. Default 16 Mi. */
  constructor(private readonly maxElementChars = 16 * 1024 * 1024) {}

  push(text: string, out: ArrayEntry[]): void {
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let i = 0;
    this.nextBackslash = -1;
    this.nextNewline = -1;
    while (i < text.length && this.state !== State.Failed) {
      if (this.state === State.Element) i = this.scanElement(text, i, out);
      else i = this.between(text, i, out);
    }
    if (this.state === State.Element) this.keep(text, this.elementStart, text.length);
    this.elementStart = 0;
  }

  end(out: ArrayEntry[]): void {
    if (this.state === State.Element && this.scalar) this.finishElement('', 0, 0, out);
    switch (this.state) {
      case State.Element:
        return this.fail(out, `the file ends inside the element that starts at line ${this.elementLine}`);
      case State.FirstElement:
      case State.NextElement:
      case State.AfterElement:
        return this.fail(out, `the file ends before the array opened at line ${this.arrayLine} is closed: ']' is missing`);
      default:
    }
  }

  /** Whitespace, `[`, `,` and `]` around elements; returns where it stopped. */
  private between(text: string, i: number, out: ArrayEntry[]): number {
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x0a) this.line++;
      if (isSpace(c)) continue;
      if (this.state === State.Done) return this.failAt(out, text.length, `unexpected text after the array's closing ']' at line ${this.line}`);
      if (this.state === State.Start) {
        if (c !== 0x5b) return this.failAt(out, text.length, `expected '[' at line ${this.line}: the file is not a JSON array`);
        this.state = State.FirstElement;
        this.arrayLine = this.line;
      } else if (this.state === State.AfterElement) {
        if (c === 0x2c) this.state = State.NextElement;
        else if (c === 0x5d) this.state = State.Done;
        else return this.failAt(out, text.length, `expected ',' or ']' after the element that starts at line ${this.elementLine}, found '${text[i]}' at line ${this.line}`);
      } else if (c === 0x5d && this.state === State.FirstElement) {
        this.state = State.Done;
      } else if (c === 0x5d || c === 0x2c) {
        return this.failAt(out, text.length, `expected an element at line ${this.line}, found '${text[i]}'${c === 0x5d ? ' (a comma before the closing bracket)' : ''}`);
      } else {
        this.startElement(c, i);
        return i + 1;
      }
    }
    return i;
  }

  private startElement(c: number, at: number): void {
    this.state = State.Element;
    this.elementLine = this.line;
    this.elementStart = at;
    this.inString = c === 0x22;
    this.scalar = !this.inString && c !== 0x7b && c !== 0x5b;
    if (c === 0x7b || c === 0x5b) this.brackets.push(c);
  }

  /** Inside an element: strings, escapes and brackets, until the element ends or the chunk does. */
  private scanElement(text: string, i: number, out: ArrayEntry[]): number {
    const brackets = this.brackets;
    while (i < text.length) {
      if (this.inString) {
        i = this.skipString(text, i);
        if (this.inString) return i;
        if (brackets.length === 0) return this.finishElement(text, this.elementStart, i, out);
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === 0x0a) this.line++;
      if (this.scalar) {
        if (endsScalar(c)) return this.finishElement(text, this.elementStart, i, out);
      } else if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) brackets.push(c);
      else if (c === 0x7d || c === 0x5d) {
        const open = brackets.pop();
        if (open !== (c === 0x7d ? 0x7b : 0x5b)) {
          return this.failAt(out, text.length, `'${text[i]}' at line ${this.line} does not close the '${open === 0x7b ? '{' : '['}' before it, in the element that starts at line ${this.elementLine}`);
        }
        if (brackets.length === 0) return this.finishElement(text, this.elementStart, i + 1, out);
      }
      i++;
    }
    return i;
  }

  /**
   * From inside a string at `i`: the offset just past its closing quote, or the chunk's end if
   * it goes on. Jumps from quote to backslash with indexOf rather than looking at each character
   * (strings are most of an event's text); newlines passed are still counted.
   */
  private skipString(text: string, i: number): number {
    if (this.escaped) {
      if (text.charCodeAt(i) === 0x0a) this.line++;
      this.escaped = false;
      i++;
    }
    for (;;) {
      const quote = text.indexOf('"', i);
      const end = quote === -1 ? text.length : quote;
      if (this.nextBackslash < i) this.nextBackslash = positionOf(text, '\\', i);
      const backslash = this.nextBackslash;
      if (backslash < end) {
        this.countNewlines(text, i, Math.min(backslash + 2, text.length));
        if (backslash + 1 >= text.length) {
          this.escaped = true;
          return text.length;
        }
        i = backslash + 2;
        continue;
      }
      this.countNewlines(text, i, end);
      if (quote === -1) return text.length;
      this.inString = false;
      return quote + 1;
    }
  }

  /** Counts the newlines in `text[from, to)`, which the character loop does not look at. */
  private countNewlines(text: string, from: number, to: number): void {
    if (this.nextNewline < from) this.nextNewline = positionOf(text, '\n', from);
    while (this.nextNewline < to) {
      this.line++;
      this.nextNewline = positionOf(text, '\n', this.nextNewline + 1);
    }
  }

  /** The element is `text[from, to)` after the parts kept from earlier chunks; returns `to`. */
  private finishElement(text: string, from: number, to: number, out: ArrayEntry[]): number {
    this.keep(text, from, to);
    if (this.skipping) out.push({ line: this.elementLine, overlong: true, head: this.head, bytes: this.skippedBytes });
    else out.push({ line: this.elementLine, text: this.parts.length === 1 ? this.parts[0]! : this.parts.join('') });
    this.parts = [];
    this.partsChars = 0;
    this.skipping = false;
    this.head = '';
    this.skippedBytes = 0;
    this.scalar = false;
    this.state = State.AfterElement;
    return to;
  }

  /** Keeps `text[from, to)` as part of the element, unless it has grown past the bound. */
  private keep(text: string, from: number, to: number): void {
    if (to <= from) return;
    this.partsChars += to - from;
    if (this.skipping) {
      this.skippedBytes += Buffer.byteLength(from === 0 && to === text.length ? text : text.slice(from, to));
      if (this.head.length < HEAD_CHARS) this.head += text.slice(from, Math.min(to, from + HEAD_CHARS - this.head.length));
      return;
    }
    this.parts.push(text.slice(from, to));
    if (this.partsChars > this.maxElementChars) {
      this.skipping = true;
      const kept = this.parts.join('');
      this.head = kept.slice(0, HEAD_CHARS);
      this.skippedBytes = Buffer.byteLength(kept);
      this.parts = [];
    }
  }

  private failAt(out: ArrayEntry[], stop: number, error: string): number {
    this.fail(out, error);
    return stop;
  }

  private fail(out: ArrayEntry[], error: string): void {
    out.push({ line: this.line, error });
    this.state = State.Failed;
    this.parts = [];
    this.brackets.length = 0;
  }
}
