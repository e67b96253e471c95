/**
 * An import's chunks, read on a worker thread. Its own connection to the staging file runs the
 * page queries (SQLite builds every event's JSON) and cuts the chunks, while the main thread
 * compresses, sends and records what the server accepted. Reading was over half of the main
 * thread's work; on a thread of its own it runs beside the requests instead of between them.
 * The worker reads at most `readAhead` chunks ahead of what the run has taken: one request
 * for the next chunk is outstanding per chunk of read-ahead.
 */
import { gunzipSync } from 'node:zlib';
import type { Chunk, ChunkLimits } from '../delivery/chunker.js';
import { eventsOfBody } from '../delivery/event-encoding.js';
import { MigrateError } from '../errors.js';
import { startWorker } from '../util/worker-bridge.js';

export interface ChunkReaderSetup {
  stagingPath: string;
  projectId: number;
  limits: ChunkLimits;
  /** At most this many events (import --sample); undefined for all pending. */
  maxEvents?: number;
  /** The kinds in the order they are sent (see send-order.ts). */
  order: readonly number[];
  /**
   * When set (gzip on), the reader also builds and compresses each chunk's whole body with
   * this project API key, so compression runs on its thread beside the requests and the main
   * thread handles a body a seventh of the size (see batch-sender.ts).
   */
  gzipApiKey?: string;
}

/**
 * A chunk as the worker answers it (its buffers arrive as Uint8Arrays), or null at the end.
 * A chunk with its compressed body comes without its events' JSON (see revive).
 */
export type ReaderAnswer = (Omit<Chunk, 'eventsJson' | 'gzipBody'> & ({ eventsJson: Uint8Array } | { gzipBody: Uint8Array })) | null;

/** Chunks ready ahead of the run. */
const DEFAULT_READ_AHEAD = 4;

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * The chunk on this thread. One with its compressed body gets its events' JSON from that body,
 * decompressed when first asked (only to split the chunk): the uncompressed bytes, seven times
 * the size, never cross the thread nor weigh on this thread's garbage collection.
 */
function revive(answer: NonNullable<ReaderAnswer>, overheadBytes: number): Chunk {
  const { kind, seqs, ends, bytes, persons } = answer;
  if ('eventsJson' in answer) return { kind, seqs, ends, bytes, persons, eventsJson: asBuffer(answer.eventsJson) };
  const gzipBody = asBuffer(answer.gzipBody);
  let eventsJson: Buffer | undefined;
  return {
    kind,
    seqs,
    ends,
    bytes,
    persons,
    gzipBody,
    get eventsJson(): Buffer {
      return (eventsJson ??= eventsOfBody(gunzipSync(gzipBody), overheadBytes));
    },
  };
}

/** A failure of the reading thread, named as such: the staging file was readable when the run began. */
function readFailure(error: unknown): Error {
  if (error instanceof MigrateError) return error;
  const failure = new Error(`reading the staging file failed: ${(error as Error)?.message ?? String(error)}`);
  failure.stack = (error as Error)?.stack;
  return failure;
}

/**
 * Young generation of the reading thread, in MB: a page's rows and the chunk cut from them live
 * until the chunk is posted, and V8's default lets a busy thread's nursery grow to 128 MB (as
 * the staging workers, see piece-pool.ts).
 */
const READER_YOUNG_GENERATION_MB = 16;

export async function* readChunksOnWorker(setup: ChunkReaderSetup, readAhead = DEFAULT_READ_AHEAD): AsyncGenerator<Chunk> {
  const worker = startWorker<'next', ReaderAnswer>(new URL('./chunk-reader-worker.js', import.meta.url), {
    workerData: setup,
    resourceLimits: { maxYoungGenerationSizeMb: READER_YOUNG_GENERATION_MB },
  });
  const ahead: Array<Promise<ReaderAnswer>> = [];
  const requestNext = (): void => {
    const next = worker.call('next');
    next.catch(() => undefined); // awaited in turn below; a failure must not go unhandled meanwhile
    ahead.push(next);
  };
  for (let i = 0; i < readAhead; i++) requestNext();
  try {
    for (;;) {
      const answer = await ahead.shift()!.catch((error: unknown) => {
        throw readFailure(error);
      });
      if (answer === null) return;
      requestNext();
      yield revive(answer, setup.limits.overheadBytes);
    }
  } finally {
    await worker.terminate();
  }
}
