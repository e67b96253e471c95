/**
 * Cuts a file's text into pieces that end on a record boundary, so several workers can stage
 * one file at once. CSV records may hold quoted newlines: a cut is made only at a line end
 * outside quotes (an even number of quote characters before it), which doubled quotes keep
 * true. Each piece knows the line number it starts on, so rejects keep their exact lines.
 */

export type TextLayout = 'csv' | 'lines';

export interface TextPiece {
  /** Text of whole records (plus, for CSV, nothing of the header). */
  text: string;
  /** 1-based line of the file on which `text` starts. */
  firstLine: number;
}

export interface PieceSplitterOptions {
  /** Piece size to aim for, in UTF-16 units. Default 2 Mi. */
  targetChars?: number;
  /**
   * Past this size a piece is cut at its last line end even inside quotes: an unclosed quote
   * must not make a piece (and memory) grow without bound. Default 64 Mi.
   */
  maxChars?: number;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

export class PieceSplitter {
  private buffer = '';
  private scanned = 0;
  private inQuotes = false;
  private lastSafe = -1;
  private nextLine = 1;
  private readonly targetChars: number;
  private readonly maxChars: number;
  /** CSV only: the header record's text including its line end, once seen. */
  header: string | undefined;
  private headerPending: boolean;

  constructor(private readonly layout: TextLayout, options: PieceSplitterOptions = {}) {
    this.targetChars = options.targetChars ?? 2 * 1024 * 1024;
    this.maxChars = options.maxChars ?? 64 * 1024 * 1024;
    this.headerPending = layout === 'csv';
  }

  /** Adds text; returns the pieces that are complete. */
  push(text: string): TextPiece[] {
    this.buffer += text;
    this.scan();
    if (this.headerPending) this.takeHeader();
    const pieces: TextPiece[] = [];
    while (!this.headerPending && this.buffer.length >= this.targetChars) {
      const piece = this.cut(this.buffer.length >= this.maxChars);
      if (piece === undefined) break;
      pieces.push(piece);
    }
    return pieces;
  }

  /** The rest of the text, as a last piece. */
  end(): TextPiece[] {
    if (this.headerPending && this.buffer.trim() !== '') {
      this.header = this.buffer.endsWith('\n') ? this.buffer : `${this.buffer}\n`;
      this.nextLine += countNewlines(this.buffer) + (this.buffer.endsWith('\n') ? 0 : 1);
      this.buffer = '';
    }
    if (this.buffer.length === 0) return [];
    const piece = { text: this.buffer, firstLine: this.nextLine };
    this.buffer = '';
    return [piece];
  }

  /**
   * Advances the quote state over new text, remembering the last line end outside quotes.
   * Line by line, flipping the state once per quote inside the line: every quote and every line
   * end is found once with indexOf, which is several times faster than a loop over characters.
   */
  private scan(): void {
    const s = this.buffer;
    if (this.layout === 'lines') {
      this.lastSafe = s.lastIndexOf('\n');
      this.scanned = s.length;
      return;
    }
    let inQuotes = this.inQuotes;
    let pos = this.scanned;
    let quote = s.indexOf('"', pos);
    for (;;) {
      const nl = s.indexOf('\n', pos);
      const end = nl === -1 ? s.length : nl;
      while (quote !== -1 && quote < end) {
        inQuotes = !inQuotes;
        quote = s.indexOf('"', quote + 1);
      }
      if (nl === -1) break;
      if (!inQuotes) this.lastSafe = nl;
      pos = nl + 1;
    }
    this.inQuotes = inQuotes;
    this.scanned = s.length;
  }

  /** The header is the first non-blank record: text up to the first safe line end after it. */
  private takeHeader(): void {
    const s = this.buffer;
    let from = 0;
    while (from < s.length && (s[from] === '\n' || s[from] === '\r' || s[from] === '\ufeff')) from++;
    if (this.lastSafe < from) return;
    const end = this.firstSafeAfter(from);
    if (end === -1) return;
    this.header = s.slice(0, end + 1);
    this.nextLine += countNewlines(this.header);
    this.dropFront(end + 1);
    this.headerPending = false;
  }

  private firstSafeAfter(from: number): number {
    let inQuotes = false;
    for (let i = from; i < this.buffer.length; i++) {
      const c = this.buffer.charCodeAt(i);
      if (c === 34) inQuotes = !inQuotes;
      else if (c === 10 && !inQuotes) return i;
    }
    return -1;
  }

  private cut(force: boolean): TextPiece | undefined {
    const at = force && this.lastSafe < 0 ? this.buffer.lastIndexOf('\n') : this.lastSafe;
    if (at < 0) return undefined;
    const text = this.buffer.slice(0, at + 1);
    const piece = { text, firstLine: this.nextLine };
    this.nextLine += countNewlines(text);
    this.dropFront(at + 1);
    if (force) this.inQuotes = false;
    return piece;
  }

  private dropFront(count: number): void {
    this.buffer = this.buffer.slice(count);
    this.scanned -= count;
    this.lastSafe = this.lastSafe >= count ? this.lastSafe - count : -1;
  }
}
