/**
 * An object's bytes as one stream, whatever happens to the connection: when it drops part-way
 * (or S3 ends the body short), the read continues with a ranged read from the byte reached,
 * guarded by the object's ETag, after the project's backoff on the injected clock. A changed
 * object fails its ranged read (412) instead of splicing two versions together.
 */
import { Readable } from 'node:stream';
import { InputError } from '../errors.js';
import { decideRetry } from '../http/retry-policy.js';
import { withRetries, type BucketContext } from './bucket-calls.js';
import type { ObjectInfo } from './s3-client.js';

export interface ObjectAddress {
  bucket: string;
  /** `s3://bucket/key`, for messages. */
  url: string;
  object: ObjectInfo;
}

async function* objectChunks(context: BucketContext, address: ObjectAddress): AsyncIterable<Buffer> {
  const { bucket, url, object } = address;
  const action = { type: 'read', bucket, url } as const;
  let offset = 0;
  let drops = 0;
  let firstDropMs: number | undefined;
  for (;;) {
    const { body } = await withRetries(context, action, () => context.calls.getObject(bucket, object.key, { startByte: offset, etag: object.etag || undefined }, context.signal));
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
    if (failure === undefined && offset >= object.sizeBytes) return;
    if (context.signal?.aborted) throw new InputError(`${url}: reading was interrupted`);
    const why = failure === undefined ? 'the answer ended early' : failure.message;
    firstDropMs ??= context.clock.now();
    const decision = decideRetry(context.policy, { attempt: drops, elapsedMs: context.clock.now() - firstDropMs }, undefined, context.clock.random);
    if (decision.type === 'give-up') throw new InputError(`${url}: the connection kept dropping at byte ${offset} of ${object.sizeBytes} (${why}); ${decision.reason}`);
    context.onRetry?.(`${url}: the connection dropped at byte ${offset} of ${object.sizeBytes} (${why}); reading on from there in ${Math.round(decision.delayMs)} ms`);
    await context.clock.sleep(decision.delayMs, context.signal);
    drops++;
  }
}

/** Opens the object's bytes from the start, as files are opened (see sources/byte-head.ts). */
export function objectByteSource(context: BucketContext, address: ObjectAddress): () => Promise<NodeJS.ReadableStream> {
  return async () => Readable.from(objectChunks(context, address), { objectMode: false });
}
