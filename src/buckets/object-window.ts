/**
 * A Parquet object's bytes as the Parquet reader asks for them (its footer, then one row
 * group's column chunks), read by ranged GETs guarded by the object's ETag: a changed object
 * fails its read (412) instead of mixing two versions. The reader asks for many small ranges
 * (a column chunk each, the footer twice); each GET fetches a window of at least WINDOW_BYTES
 * from the first byte asked for, and the ranges that follow inside it are served from memory.
 * One window is held at a time, and a GET is made one at a time: memory is bounded by the
 * window and the largest range asked for, whatever the row group's size.
 */
import type { ParquetBytes } from '../sources/columnar/parquet-file.js';
import type { BucketContext } from './bucket-calls.js';
import { objectChunks, type ObjectAddress } from './object-bytes.js';

/** Bytes fetched at least by one GET: a few column chunks, or a whole small row group. */
export const WINDOW_BYTES = 8 * 1024 * 1024;

interface Window {
  start: number;
  bytes: Buffer;
}

/** The object's bytes from `start` to `end`, as one buffer of exactly that length. */
async function fetchRange(context: BucketContext, address: ObjectAddress, start: number, end: number): Promise<Buffer> {
  // A buffer of its own (never Node's shared pool): a range as long as a window is handed on as it is.
  const out = Buffer.allocUnsafeSlow(end - start);
  let at = 0;
  for await (const chunk of objectChunks(context, address, start, end)) {
    const take = Math.min(chunk.length, out.length - at);
    chunk.copy(out, at, 0, take);
    at += take;
  }
  if (at < out.length) throw new Error(`${address.url} ends at byte ${start + at}, before byte ${end}`);
  return out;
}

/** The Parquet reader's view of an object; `failure` is the bucket's error that made a read fail, kept for the caller to rethrow as it is. */
export class ObjectWindow implements ParquetBytes {
  readonly byteLength: number;
  failure: Error | undefined;
  private window: Window | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private tailKept = false;

  /**
   * `whole`: a small object's bytes, fetched whole when it was opened (SmallObjects), serve
   * every read until `release` (then `onRelease` hands their room back).
   */
  constructor(
    private readonly context: BucketContext,
    private readonly address: ObjectAddress,
    private whole?: Buffer,
    private readonly onRelease?: (bytes: Buffer) => void,
    private readonly windowBytes = WINDOW_BYTES,
  ) {
    this.byteLength = address.object.sizeBytes;
  }

  /** Lets go of a small object's bytes: the read is over. */
  release(): void {
    const whole = this.whole;
    this.whole = undefined;
    if (whole !== undefined) this.onRelease?.(whole);
  }

  slice(start: number, end = this.byteLength): Promise<ArrayBuffer> {
    // One GET at a time: the ranges the reader asks for at once mostly fall in the window the first one fetches.
    const next = this.queue.then(() => this.read(start, end));
    this.queue = next.catch(() => {});
    return next;
  }

  private async read(start: number, end: number): Promise<ArrayBuffer> {
    if (this.whole !== undefined) return copyOf(this.whole, start, end);
    const held = this.window;
    if (held !== undefined && start >= held.start && end <= held.start + held.bytes.length) return copyOf(held.bytes, start - held.start, end - held.start);
    try {
      if (end - start >= this.windowBytes) return (await fetchRange(this.context, this.address, start, end)).buffer as ArrayBuffer;
      const windowEnd = Math.min(this.byteLength, start + this.windowBytes);
      this.window = undefined;
      const bytes = await fetchRange(this.context, this.address, start, windowEnd);
      this.window = { start, bytes };
      return copyOf(bytes, 0, end - start);
    } catch (error) {
      this.failure ??= error as Error;
      throw error;
    }
  }

  async close(): Promise<void> {
    // The Parquet reader closes its bytes between reading the footer and taking the footer's
    // digest: the window holding the object's end is kept for that, once; never after.
    const held = this.window;
    if (!this.tailKept && held !== undefined && held.start + held.bytes.length === this.byteLength) {
      this.tailKept = true;
      return;
    }
    this.window = undefined;
  }
}

/** Bytes `from` to `to` of `bytes` as an ArrayBuffer of their own (the reader keeps it; the window is let go). */
function copyOf(bytes: Buffer, from: number, to: number): ArrayBuffer {
  const out = new ArrayBuffer(to - from);
  new Uint8Array(out).set(bytes.subarray(from, to));
  return out;
}
