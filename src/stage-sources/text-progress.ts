/**
 * How far a read has got through a file's decoded text, and the fingerprint of that text, so an
 * interrupted read can be resumed after its last written piece: the file is decoded again up to
 * there (decompressed too, for gzip, and decoded from its encoding) and hashed, not parsed, and
 * resumed only when the text is the same as the text already staged.
 */
import { createHash, type Hash } from 'node:crypto';
import { isWellFormedText } from '../sources/invalid-text.js';
import type { ReadProgress } from '../staging/source-reads.js';

const CR = 13;

/**
 * The UTF-8 bytes `text` was decoded from: a byte that was not valid is marked by one lone
 * surrogate (text-decoder.ts), which Buffer.byteLength counts as the 3 bytes of U+FFFD.
 */
export function utf8SourceBytes(text: string): number {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (isWellFormedText(text)) return bytes;
  let lone = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    else lone++;
  }
  return bytes - 2 * lone;
}

export class TextProgress {
  /** Text seen so far, in UTF-16 units (from where `hash` was given, when given). */
  chars = 0;
  /** The text seen ends with `\r` (a `\n` next would belong to its line end). */
  endsInCr = false;
  /** The UTF-8 bytes of the text seen (see utf8SourceBytes): where a ranged read of a UTF-8 object goes on. */
  bytes = 0;

  /** @param hash the hash of the text before this tracker's, to go on from (see byte-pieces.ts) */
  constructor(private readonly hash: Hash = createHash('sha256')) {}

  update(text: string): void {
    if (text.length === 0) return;
    this.hash.update(text, 'utf8');
    this.chars += text.length;
    this.bytes += utf8SourceBytes(text);
    this.endsInCr = text.charCodeAt(text.length - 1) === CR;
  }

  fingerprint(): string {
    if (this.rangedFrom !== undefined) return this.rangedFrom;
    return `sha256:${this.hash.copy().digest('hex')}`;
  }

  /** Set once the text before was not read (a ranged resume): the points recorded say so. */
  private rangedFrom: string | undefined;

  /**
   * Goes on from `progress` without the text before it (read again from its byte): the
   * fingerprints recorded from here cannot be of the text from the start, so they name the
   * point the text was taken up at, which no hash of a text equals (a later resume that hashes
   * the text from the start finds it changed and stages it again, never splices).
   */
  continueAt(progress: { chars: number; bytes?: number | null }, afterCr: boolean): void {
    this.chars = progress.chars;
    this.bytes = progress.bytes ?? 0;
    this.endsInCr = afterCr;
    this.rangedFrom = `ranged:${progress.chars}`;
  }
}

/**
 * The progress of a source whose text is made again from any line (SourceInput.resumable):
 * its fingerprint is the source's key, and the text is counted, not hashed.
 */
export class KeyedProgress extends TextProgress {
  constructor(private readonly key: string) {
    super();
  }

  override update(text: string): void {
    this.chars += text.length;
  }

  override fingerprint(): string {
    return this.key;
  }
}

/** The progress tracker of a new read of `input`. */
export function newProgress(input: { resumable?: { key: string } }): TextProgress {
  return input.resumable === undefined ? new TextProgress() : new KeyedProgress(input.resumable.key);
}

/**
 * The text as it arrives, hashed into a TextProgress up to the point asked: the end of each
 * piece, whose fingerprint is recorded with it. Only text not yet hashed is held (about what
 * the piece splitter holds), never the file.
 */
export class ArrivingText {
  private pending: string[] = [];

  constructor(readonly tracker: TextProgress) {}

  add(text: string): void {
    if (text.length > 0) this.pending.push(text);
  }

  /** Hashes the text up to `chars` (UTF-16 units from the start of the file). */
  hashTo(chars: number): void {
    while (this.tracker.chars < chars && this.pending.length > 0) {
      const first = this.pending[0]!;
      const wanted = chars - this.tracker.chars;
      if (first.length <= wanted) {
        this.tracker.update(first);
        this.pending.shift();
      } else {
        this.tracker.update(first.slice(0, wanted));
        this.pending[0] = first.slice(wanted);
      }
    }
  }
}

/**
 * Reads `text` up to `progress.chars`, hashing it into `tracker`. Returns the rest of the text
 * (the same stream, from there on) when what was read matches the fingerprint, else undefined:
 * the file is not the one whose read was interrupted (changed, or shorter).
 */
export async function skipStagedText(text: AsyncIterable<string>, progress: ReadProgress, tracker: TextProgress): Promise<AsyncIterable<string> | undefined> {
  const iterator = text[Symbol.asyncIterator]();
  let rest = '';
  while (tracker.chars < progress.chars) {
    const next = await iterator.next();
    if (next.done === true) break;
    const wanted = progress.chars - tracker.chars;
    if (next.value.length <= wanted) tracker.update(next.value);
    else {
      tracker.update(next.value.slice(0, wanted));
      rest = next.value.slice(wanted);
    }
  }
  if (tracker.chars !== progress.chars || tracker.fingerprint() !== progress.fingerprint) {
    await iterator.return?.();
    return undefined;
  }
  return (async function* () {
    if (rest.length > 0) yield rest;
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) yield next.value;
  })();
}
