/**
 * Splits streamed text into lines with their numbers. A line longer than the bound is reported
 * and skipped without being held in memory, so one runaway line cannot exhaust it.
 */

export interface TextLine {
  line: number;
  text: string;
}

export interface OverlongLine {
  line: number;
  overlong: true;
  head: string;
}

export class LineSplitter {
  private buffer = '';
  private line = 1;
  private skipping = false;
  private skippedHead = '';

  /** @param maxLineChars longest line kept, in UTF-16 units. Default 16 Mi. */
  constructor(private readonly maxLineChars = 16 * 1024 * 1024) {}

  push(text: string, out: Array<TextLine | OverlongLine>): void {
    if (this.line === 1 && this.buffer === '' && !this.skipping && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    let s = this.buffer.length === 0 ? text : this.buffer + text;
    let pos = 0;
    for (let nl = s.indexOf('\n'); nl !== -1; nl = s.indexOf('\n', pos)) {
      if (this.skipping) {
        out.push({ line: this.line, overlong: true, head: this.skippedHead });
        this.skipping = false;
      } else {
        const end = nl > pos && s.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
        out.push({ line: this.line, text: s.slice(pos, end) });
      }
      this.line++;
      pos = nl + 1;
    }
    s = s.slice(pos);
    if (s.length > this.maxLineChars && !this.skipping) {
      this.skipping = true;
      this.skippedHead = s.slice(0, 200);
    }
    this.buffer = this.skipping ? '' : s;
  }

  end(out: Array<TextLine | OverlongLine>): void {
    if (this.skipping) out.push({ line: this.line, overlong: true, head: this.skippedHead });
    else if (this.buffer.length > 0) out.push({ line: this.line, text: this.buffer.replace(/\r$/, '') });
    this.buffer = '';
    this.skipping = false;
  }
}
