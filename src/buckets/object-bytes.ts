/**
 * An object's bytes as one stream, whatever happens to the connection: when it drops part-way
 * (or S3 ends the body short), the read continues with a ranged read from the byte reached,
 * guarded by the object's ETag, after the project's backoff on the injected clock. A changed
 * object fails its ranged read (412) instead of splicing two versions together.
 */
import { Readable } from 'node:stream';
import { InputError, InterruptedError } from '../errors.js';
import { decideRetry } from '../http/retry-policy.js';
import { withRetries, type BucketContext } from './bucket-calls.js';
import type { ObjectInfo } from './s3-client.js';
import { createChunkDecoder } from '../sources/text-decoder.js';
import type { SourceInput } from '../sources/source-input.js';

const CR = 13;

export interface ObjectAddress {
  bucket: string;
  /** `s3://bucket/key`, for messages. */
  url: string;
  object: ObjectInfo;
}

/** The bytes from `startByte` up to `endByte` (exclusive; default the object's end). */
export async function* objectChunks(context: BucketContext, address: ObjectAddress, startByte = 0, endByte = address.object.sizeBytes): AsyncIterable<Buffer> {
  const { bucket, url, object } = address;
  const action = { type: 'read', bucket, url } as const;
  let offset = startByte;
  let drops = 0;
  let firstDropMs: number | undefined;
  for (;;) {
    const { body, versionId } = await withRetries(context, action, () =>
      context.calls.getObject(bucket, object.key, { startByte: offset, endByte: endByte < object.sizeBytes ? endByte : undefined, etag: object.etag || undefined }, context.signal),
    );
    object.versionId ??= versionId;
    let failure: Error | undefined;
    try {
      for await (const chunk of body) {
        offset += (chunk as Buffer).length;
        drops = 0;
        firstDropMs = undefined;
        yield chunk as Buffer;
      }
    } catch (error) {
      failure = error as Error;
    } finally {
      body.destroy();
    }
    if (failure === undefined && offset >= endByte) return;
    if (context.signal?.aborted) throw new InterruptedError(`interrupted while reading ${url}`, ['Run the same command again: what was staged is kept and the rest is read.']);
    const why = failure === undefined ? 'the answer ended early' : failure.message;
    firstDropMs ??= context.clock.now();
    const decision = decideRetry(context.policy, { attempt: drops, elapsedMs: context.clock.now() - firstDropMs }, undefined, context.clock.random);
    if (decision.type === 'give-up') throw new InputError(`${url}: the connection kept dropping at byte ${offset} of ${object.sizeBytes} (${why}); ${decision.reason}`);
    context.onRetry?.(`${url}: the connection dropped at byte ${offset} of ${object.sizeBytes} (${why}); reading on from there in ${Math.round(decision.delayMs)} ms`);
    await context.clock.sleep(decision.delayMs, context.signal);
    drops++;
  }
}

/**
 * Objects up to this size are fetched once: the bytes looked at first (whether gzip, which
 * encoding) are all of them, kept until the object is read. Exporters that write many small
 * files (Mixpanel's incremental pipelines) would otherwise cost two requests a file.
 */
export const SMALL_OBJECT_BYTES = 64 * 1024;
/** Most bytes of small objects kept at once for a run; beyond it an object is fetched twice. */
const KEPT_BYTES = 64 * 1024 * 1024;

/** The bytes of small objects kept between their first look and their read, for one run. */
export class SmallObjects {
  private keptBytes = 0;

  async fetch(context: BucketContext, address: ObjectAddress): Promise<Buffer | undefined> {
    if (address.object.sizeBytes > SMALL_OBJECT_BYTES || this.keptBytes + address.object.sizeBytes > KEPT_BYTES) return undefined;
    const parts: Buffer[] = [];
    for await (const chunk of objectChunks(context, address)) parts.push(chunk);
    const bytes = Buffer.concat(parts);
    this.keptBytes += bytes.length;
    return bytes;
  }

  release(bytes: Buffer): void {
    this.keptBytes -= bytes.length;
  }
}

/** An object's bytes from its start, its first few read already: what it is (Parquet, Avro, text) is told before it is read. */
export interface ObjectStart {
  /** At least the bytes asked for (all of them when the object is shorter). */
  head: Buffer;
  /** Every byte from the start, `head` first: to be read once, or closed. */
  bytes: AsyncIterable<Buffer>;
  close(): Promise<void>;
}

/** Starts reading the object from its start, up to `count` bytes read: the GET that looks at its head goes on as its read. */
export async function objectStart(context: BucketContext, address: ObjectAddress, count: number): Promise<ObjectStart> {
  const chunks = objectChunks(context, address)[Symbol.asyncIterator]();
  const first: Buffer[] = [];
  let got = 0;
  while (got < count) {
    const next = await chunks.next();
    if (next.done === true) break;
    first.push(next.value);
    got += next.value.length;
  }
  async function* bytes(): AsyncIterable<Buffer> {
    try {
      yield* first;
      for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) yield next.value;
    } finally {
      await chunks.return?.();
    }
  }
  return { head: Buffer.concat(first), bytes: bytes(), close: async () => void (await chunks.return?.()) };
}

/**
 * Opens the object's bytes from the start, as files are opened (see sources/byte-head.ts). Its
 * first open is `started` when given (a read begun to look at its head), or `fetched`, a small
 * object's bytes fetched whole (SmallObjects), which serve its first two opens.
 */
export function objectByteSource(context: BucketContext, address: ObjectAddress, small?: SmallObjects, fetched?: Buffer, started?: AsyncIterable<Buffer>): () => Promise<NodeJS.ReadableStream> {
  let kept = fetched;
  let first = started;
  let opens = 0;
  return async () => {
    opens++;
    if (first !== undefined) {
      const bytes = first;
      first = undefined;
      return Readable.from(bytes, { objectMode: false });
    }
    if (kept === undefined) return Readable.from(objectChunks(context, address), { objectMode: false });
    const bytes = kept;
    // The second open is the read: after it the object is fetched again if ever needed.
    if (opens >= 2) {
      small?.release(bytes);
      kept = undefined;
    }
    return Readable.from([bytes], { objectMode: false });
  };
}

/**
 * The object's text from `bytes` into its content on (after a byte-order mark of `bomBytes`),
 * by a ranged read guarded by its ETag. The byte before is read too, to tell whether the text
 * before ended in `\r` (then a `\n` first is the rest of that line end).
 */
export function rangedText(context: BucketContext, address: ObjectAddress, bomBytes: number): NonNullable<SourceInput['rangedText']> {
  return {
    etag: address.object.etag,
    textFromByte: async (bytes) => {
      const start = bomBytes + bytes;
      const chunks = objectChunks(context, address, Math.max(bomBytes, start - 1))[Symbol.asyncIterator]();
      let first = bytes > 0 ? await chunks.next() : undefined;
      const afterCr = first?.done === false && first.value[0] === CR;
      if (first?.done === false) first = { done: false, value: first.value.subarray(1) };
      async function* text(): AsyncIterable<string> {
        const decoder = createChunkDecoder('utf-8');
        const parts = async function* () {
          if (first?.done === false) yield first.value;
          for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) yield next.value;
        };
        for await (const chunk of parts()) {
          const decoded = decoder.decode(chunk);
          if (decoded.length > 0) yield decoded;
        }
        const end = decoder.end();
        if (end.length > 0) yield end;
      }
      return { text: text(), afterCr };
    },
  };
}
