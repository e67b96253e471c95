/**
 * Splits streamed text into lines with their numbers: `\n`, `\r\n` and a lone `\r` each end a
 * line. A line longer than the bound is reported and skipped without being held in memory, so
 * one runaway line cannot exhaust it (the piece splitter skips such lines before they get here;
 * this bound is for readers used alone).
 */
import { headOf } from './line-ends.js';

export interface TextLine {
  line: number;
  text: string;
}

export interface OverlongLine {
  line: number;
  overlong: true;
  head: string;
  /** The line's length in UTF-16 units (at least as many bytes). */
  chars: number;
}

const LF = 10;

export class LineSplitter {
  private buffer = '';
  private line = 1;
  private skipping = false;
  private skippedHead = '';
  private skippedChars = 0;
  /** The last line ended with a `\r` at the end of the text: a `\n` first belongs to it. */
  private afterCr = false;

  /** @param maxLineChars longest line kept, in UTF-16 units. Default 16 Mi. */
  constructor(private readonly maxLineChars = 16 * 1024 * 1024) {}

  push(text: string, out: Array<TextLine | OverlongLine>): void {
    if (this.line === 1 && this.buffer === '' && !this.skipping && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    let s = this.buffer.length === 0 ? text : this.buffer + text;
    let pos = 0;
    if (this.afterCr && s.length > 0) {
      this.afterCr = false;
      if (s.charCodeAt(0) === LF) pos = 1;
    }
    let lf = s.indexOf('\n', pos);
    let cr = s.indexOf('\r', pos);
    while (lf !== -1 || cr !== -1) {
      const at = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      let next = at + 1;
      if (at === cr) {
        if (s.charCodeAt(at + 1) === LF) next = at + 2;
        else if (at + 1 >= s.length) this.afterCr = true;
      }
      this.emit(s.slice(pos, at), at - pos, out);
      pos = next;
      if (lf !== -1 && lf < pos) lf = s.indexOf('\n', pos);
      if (cr !== -1 && cr < pos) cr = s.indexOf('\r', pos);
    }
    s = pos === 0 ? s : s.slice(pos);
    if (this.skipping) {
      this.skippedChars += s.length;
      s = '';
    } else if (s.length > this.maxLineChars) {
      this.skipping = true;
      this.skippedHead = headOf(s, 200);
      this.skippedChars = s.length;
      s = '';
    }
    this.buffer = s;
  }

  end(out: Array<TextLine | OverlongLine>): void {
    if (this.skipping || this.buffer.length > 0) this.emit(this.buffer, this.buffer.length, out);
    this.buffer = '';
    this.skipping = false;
  }

  private emit(text: string, chars: number, out: Array<TextLine | OverlongLine>): void {
    if (this.skipping) {
      out.push({ line: this.line, overlong: true, head: this.skippedHead, chars: this.skippedChars + chars });
      this.skipping = false;
    } else {
      out.push({ line: this.line, text });
    }
    this.line++;
  }
}
