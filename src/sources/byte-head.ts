/**
 * A source's bytes read once from the start: the first bytes looked at (gzip or not, binary or
 * text, which encoding), then the rest continued from the same stream. Files and zip entries
 * are opened again for the full read, so thousands of them are never held open at once; a pipe
 * or standard input can be read only once, so its head is kept and the read goes on from it.
 */
import { createHash, type Hash } from 'node:crypto';
import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { InputError, InterruptedError } from '../errors.js';

/** Opens the raw bytes of a source from the start: a file, a zip entry, a pipe. */
export type ByteSource = () => Promise<NodeJS.ReadableStream>;

/**
 * Read size per chunk, in bytes: large enough that per-chunk overhead vanishes, small enough
 * that its text stays out of V8's large-object space (strings over 128 KiB), which only a full
 * collection empties.
 */
export const CHUNK_BYTES = 64 * 1024;
/** Bytes looked at before any row is read. */
const HEAD_BYTES = 64 * 1024;

export interface ByteHead {
  /** The first bytes of the content (after gunzip), up to 64 KiB. */
  head: Buffer;
  /** True when more content follows the head. */
  truncated: boolean;
  compressed: boolean;
  /** Every byte of the content from the start, the head included, once. */
  bytes: AsyncIterable<Buffer>;
  /** `sha256:<hex>` of the raw bytes; only once `bytes` has been read to its end. */
  fingerprint(): string | undefined;
  /** Stops reading and releases the stream. */
  destroy(): void;
}

export function isGzip(head: Uint8Array): boolean {
  return head.length >= 3 && head[0] === 0x1f && head[1] === 0x8b && head[2] === 0x08;
}

/** True when the bytes start like a zip archive (a local file header or an empty archive). */
export function isZip(head: Uint8Array): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6));
}

/**
 * `promise`, or a rejection as soon as `signal` aborts. The listener is removed once the
 * promise settles: racing every read against one long-lived promise kept each chunk read alive.
 */
export function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Chunks already taken from `iterator`, then the rest of it. */
async function* replay(taken: readonly Buffer[], iterator: AsyncIterator<Buffer>): AsyncIterable<Buffer> {
  yield* taken;
  for (;;) {
    const next = await iterator.next();
    if (next.done === true) return;
    yield next.value;
  }
}

/** Takes chunks from `iterator` until they hold `bytes` bytes or it ends. */
async function take(iterator: AsyncIterator<Buffer>, bytes: number, signal: AbortSignal | undefined): Promise<{ chunks: Buffer[]; ended: boolean }> {
  const chunks: Buffer[] = [];
  let length = 0;
  while (length < bytes) {
    const next = await unlessAborted(iterator.next(), signal);
    if (next.done === true) return { chunks, ended: true };
    chunks.push(next.value);
    length += next.value.length;
  }
  return { chunks, ended: false };
}

async function* hashed(stream: NodeJS.ReadableStream, hash: Hash): AsyncIterable<Buffer> {
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    yield chunk as Buffer;
  }
}

/** Opens `open` and reads its head; gzip is recognised by its magic bytes and undone. */
export async function readByteHead(open: ByteSource, displayName: string, signal?: AbortSignal): Promise<ByteHead> {
  const raw = await open();
  const hash = createHash('sha256');
  let done = false;
  const rawIterator = hashed(raw, hash)[Symbol.asyncIterator]();
  const destroyables: Array<{ destroy(): void }> = [raw as unknown as { destroy(): void }];
  let first: { chunks: Buffer[]; ended: boolean };
  try {
    first = await take(rawIterator, 3, signal);
  } catch (error) {
    for (const stream of destroyables) stream.destroy();
    if (signal?.aborted) throw new InterruptedError(`interrupted while waiting for ${displayName} to be written to; nothing was staged`);
    throw error;
  }
  const compressed = isGzip(Buffer.concat(first.chunks));
  let content = replay(first.chunks, rawIterator)[Symbol.asyncIterator]();
  if (compressed) {
    // pipeline destroys the gunzip stream with any earlier stream's error, so the reader sees it.
    const gunzip = pipeline(Readable.from(replay(first.chunks, rawIterator)), createGunzip({ chunkSize: CHUNK_BYTES }), () => {});
    destroyables.push(gunzip);
    content = (gunzip as unknown as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  }
  let head: { chunks: Buffer[]; ended: boolean };
  try {
    head = await take(content, HEAD_BYTES, signal);
  } catch (error) {
    for (const stream of destroyables) stream.destroy();
    if (signal?.aborted) throw new InterruptedError(`interrupted while reading ${displayName}; nothing was staged`);
    if (compressed) throw new InputError(`${displayName}: is not a valid gzip file (${(error as Error).message})`);
    // The caller says what could not be read (a file, an entry of an archive).
    throw error;
  }
  async function* bytes(): AsyncIterable<Buffer> {
    yield* replay(head.chunks, content);
    done = true;
  }
  let digest: string | undefined;
  return {
    head: Buffer.concat(head.chunks),
    truncated: !head.ended,
    compressed,
    bytes: bytes(),
    fingerprint: () => (done ? (digest ??= `sha256:${hash.digest('hex')}`) : undefined),
    destroy: () => {
      for (const stream of destroyables) stream.destroy();
    },
  };
}
