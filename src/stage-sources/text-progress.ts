/**
 * How far a read has got through a file's decoded text, and the fingerprint of that text, so an
 * interrupted read can be resumed after its last written piece: the file is decoded again up to
 * there (decompressed too, for gzip) and hashed, not parsed, and resumed only when the text is
 * the same as the text already staged.
 */
import { createHash, type Hash } from 'node:crypto';
import type { ReadProgress } from '../staging/source-reads.js';

export class TextProgress {
  private readonly hash: Hash = createHash('sha256');
  /** Text seen so far, in UTF-16 units. */
  chars = 0;

  update(text: string): void {
    this.hash.update(text, 'utf8');
    this.chars += text.length;
  }

  fingerprint(): string {
    return `sha256:${this.hash.copy().digest('hex')}`;
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
