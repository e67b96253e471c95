/**
 * Cuts a file's text into pieces that end on a record boundary, so several workers can stage
 * one file at once. CSV records may hold quoted newlines: a cut is made only at a line end
 * outside quotes (an even number of quote characters before it), which doubled quotes keep
 * true. Each piece knows the line number it starts on, so rejects keep their exact lines.
 */

export type TextLayout = 'csv' | 'lines';

export interface TextPiece {
  /**
   * Text of whole records (for CSV, nothing of the header), in the parts it arrived in: never
   * joined into one string, since strings of over 128 KiB live in V8's large-object space,
   * which only a full collection empties, and a million-line file made gigabytes of them.
   */
  texts: string[];
  /** 1-based line of the file on which the text starts. */
  firstLine: number;
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

export interface PieceSplitterOptions {
  /** Piece size to aim for, in UTF-16 units. Default 1 Mi. */
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

/** A place in the pending text: chunk index and offset in that chunk. */
interface Place {
  chunk: number;
  at: number;
}

/**
 * Text arrives in chunks and is scanned once, chunk by chunk: appending each chunk to one
 * growing string made every scan flatten (copy) that string again, which cost more than the
 * scan itself. A piece is handed on as its chunks, never joined (see TextPiece).
 */
export class PieceSplitter {
  private chunks: string[] = [];
  private pendingChars = 0;
  private inQuotes = false;
  /** The last line end outside quotes in the pending text. */
  private lastSafe: Place | undefined;
  private nextLine = 1;
  private readonly targetChars: number;
  private readonly maxChars: number;
  /** CSV only: the header record's text including its line end, once seen. */
  header: string | undefined;
  private headerPending: boolean;

  constructor(private readonly layout: TextLayout, options: PieceSplitterOptions = {}) {
    this.targetChars = options.targetChars ?? 1024 * 1024;
    this.maxChars = options.maxChars ?? 64 * 1024 * 1024;
    this.headerPending = layout === 'csv';
  }

  /** Adds text; returns the pieces that are complete. */
  push(text: string): TextPiece[] {
    if (text.length > 0) this.append(text);
    if (this.headerPending) this.takeHeader();
    const pieces: TextPiece[] = [];
    while (!this.headerPending && this.pendingChars >= this.targetChars) {
      const piece = this.cut(this.pendingChars >= this.maxChars);
      if (piece === undefined) break;
      pieces.push(piece);
    }
    return pieces;
  }

  /** The rest of the text, as a last piece. */
  end(): TextPiece[] {
    const rest = this.takeAll();
    if (this.headerPending && rest.trim() !== '') {
      this.header = rest.endsWith('\n') ? rest : `${rest}\n`;
      this.nextLine += countNewlines(rest) + (rest.endsWith('\n') ? 0 : 1);
      return [];
    }
    return rest.length === 0 ? [] : [{ texts: [rest], firstLine: this.nextLine }];
  }

  private append(text: string): void {
    this.chunks.push(text);
    this.pendingChars += text.length;
    this.scan(this.chunks.length - 1);
  }

  private takeAll(): string {
    const all = this.chunks.join('');
    this.chunks = [];
    this.pendingChars = 0;
    this.lastSafe = undefined;
    return all;
  }

  /**
   * Advances the quote state over one chunk, remembering the last line end outside quotes.
   * Line by line, flipping the state once per quote inside the line: every quote and every line
   * end is found once with indexOf, several times faster than a loop over characters.
   */
  private scan(chunk: number): void {
    const s = this.chunks[chunk]!;
    if (this.layout === 'lines') {
      const nl = s.lastIndexOf('\n');
      if (nl !== -1) this.lastSafe = { chunk, at: nl };
      return;
    }
    let inQuotes = this.inQuotes;
    let pos = 0;
    let quote = s.indexOf('"');
    let safe = -1;
    for (;;) {
      const nl = s.indexOf('\n', pos);
      const end = nl === -1 ? s.length : nl;
      while (quote !== -1 && quote < end) {
        inQuotes = !inQuotes;
        quote = s.indexOf('"', quote + 1);
      }
      if (nl === -1) break;
      if (!inQuotes) safe = nl;
      pos = nl + 1;
    }
    this.inQuotes = inQuotes;
    if (safe !== -1) this.lastSafe = { chunk, at: safe };
  }

  /** The header is the first non-blank record: text up to the first safe line end after it. */
  private takeHeader(): void {
    if (this.lastSafe === undefined) return;
    const s = this.takeAll();
    let from = 0;
    while (from < s.length && (s[from] === '\n' || s[from] === '\r' || s[from] === '\ufeff')) from++;
    const end = firstSafeAfter(s, from);
    if (end === -1) {
      this.rescan(s);
      return;
    }
    this.header = s.slice(0, end + 1);
    this.nextLine += countNewlines(this.header);
    this.headerPending = false;
    this.rescan(s.slice(end + 1));
  }

  /** Scans `text` again from a line end outside quotes (after the header). */
  private rescan(text: string): void {
    this.inQuotes = false;
    if (text.length > 0) this.append(text);
  }

  private cut(force: boolean): TextPiece | undefined {
    const at = this.lastSafe ?? (force ? this.lastLineEnd() : undefined);
    if (at === undefined) return undefined;
    const head = this.chunks.slice(0, at.chunk);
    const last = this.chunks[at.chunk]!;
    head.push(last.slice(0, at.at + 1));
    const rest = last.slice(at.at + 1);
    this.chunks = rest.length > 0 ? [rest, ...this.chunks.slice(at.chunk + 1)] : this.chunks.slice(at.chunk + 1);
    this.pendingChars = this.chunks.reduce((n, c) => n + c.length, 0);
    // Nothing after the last safe line end is safe; after a forced cut, start outside quotes.
    this.lastSafe = undefined;
    if (force) this.inQuotes = false;
    const piece = { texts: head, firstLine: this.nextLine };
    for (const text of head) this.nextLine += countNewlines(text);
    return piece;
  }

  /** The last line end in the pending text, quotes or not. */
  private lastLineEnd(): Place | undefined {
    for (let chunk = this.chunks.length - 1; chunk >= 0; chunk--) {
      const at = this.chunks[chunk]!.lastIndexOf('\n');
      if (at !== -1) return { chunk, at };
    }
    return undefined;
  }
}

function firstSafeAfter(s: string, from: number): number {
  let inQuotes = false;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 34) inQuotes = !inQuotes;
    else if (c === 10 && !inQuotes) return i;
  }
  return -1;
}
