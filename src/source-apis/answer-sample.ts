/**
 * What is looked at of a source API's answer before its range may be staged: its first bytes
 * and its last byte, of the content as the reader will see it (a gzipped answer is inflated as
 * it arrives, alongside the download, and only these few bytes are kept). A gzip stream that
 * does not inflate to its end is recorded as damaged: a cut the length and framing missed.
 */
import { createGunzip, type Gunzip } from 'node:zlib';
import { isGzip } from '../sources/byte-head.js';

/** Bytes of the content's start kept for the checks (a first line, an HTML page's head). */
export const SAMPLE_HEAD_BYTES = 4096;

export interface AnswerSample {
  /** Bytes of the answer as received. */
  bytes: number;
  /** Whether the answer was gzip, inflated for the sample. */
  gzip: boolean;
  /** The content's first bytes (inflated, for gzip), at most SAMPLE_HEAD_BYTES. */
  head: Buffer;
  /** The content's last byte; undefined when it is empty. */
  lastByte: number | undefined;
  /** Bytes of the content (inflated, for gzip). */
  contentBytes: number;
  /** A gzip answer that did not inflate to its end: why. */
  damaged?: string;
}

export class AnswerSampler {
  private bytes = 0;
  /** The first bytes, until there are enough to tell gzip from the rest. */
  private start: Buffer | undefined = Buffer.alloc(0);
  private gunzip: Gunzip | undefined;
  private ended: Promise<void> | undefined;
  private damaged: string | undefined;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private lastByte: number | undefined;
  private contentBytes = 0;

  /** Takes the answer's next piece, as received. */
  async add(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
    if (this.start !== undefined) {
      this.start = Buffer.concat([this.start, chunk]);
      if (this.start.length < 3) return;
      chunk = this.start;
      this.start = undefined;
      if (isGzip(chunk)) this.startGunzip();
    }
    if (this.gunzip === undefined) return this.content(chunk);
    if (this.damaged !== undefined) return;
    if (!this.gunzip.write(chunk)) await new Promise<void>((resolve) => this.gunzip!.once('drain', resolve).once('error', () => resolve()));
  }

  /** The sample, once the whole answer was added. */
  async finish(): Promise<AnswerSample> {
    if (this.start !== undefined) this.content(this.start);
    if (this.gunzip !== undefined) {
      if (this.damaged === undefined) this.gunzip.end();
      await this.ended;
    }
    return { bytes: this.bytes, gzip: this.gunzip !== undefined, head: Buffer.concat(this.head), lastByte: this.lastByte, contentBytes: this.contentBytes, damaged: this.damaged };
  }

  private startGunzip(): void {
    const gunzip = createGunzip();
    this.gunzip = gunzip;
    gunzip.on('data', (chunk: Buffer) => this.content(chunk));
    this.ended = new Promise<void>((resolve) => {
      gunzip.once('end', resolve);
      gunzip.on('error', (error) => {
        this.damaged ??= error.message;
        resolve();
      });
    });
  }

  private content(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.contentBytes += chunk.length;
    this.lastByte = chunk[chunk.length - 1];
    if (this.headBytes >= SAMPLE_HEAD_BYTES) return;
    const part = chunk.subarray(0, SAMPLE_HEAD_BYTES - this.headBytes);
    this.head.push(Buffer.from(part));
    this.headBytes += part.length;
  }
}
