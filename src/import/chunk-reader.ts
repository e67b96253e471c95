/**
 * An import's chunks, read on a worker thread. Its own connection to the staging file runs the
 * page queries (SQLite builds every event's JSON) and cuts the chunks, while the main thread
 * compresses, sends and records what the server accepted. Reading was over half of the main
 * thread's work; on a thread of its own it runs beside the requests instead of between them.
 * The worker reads at most `readAhead` chunks ahead of what the run has taken.
 */
import { Worker } from 'node:worker_threads';
import type { Chunk, ChunkLimits } from '../delivery/chunker.js';

export interface ChunkReaderSetup {
  stagingPath: string;
  projectId: number;
  limits: ChunkLimits;
  /** At most this many events (import --sample); undefined for all pending. */
  maxEvents?: number;
}

/** What the worker posts: a chunk (its buffer arrives as a Uint8Array), the end, or a failure. */
export type ReaderMessage =
  | { chunk: Omit<Chunk, 'eventsJson'> & { eventsJson: Uint8Array } }
  | { done: true }
  | { error: { message: string; stack?: string } };

/** Chunks ready ahead of the run. */
const DEFAULT_READ_AHEAD = 4;

type Received = ReaderMessage | { exitCode: number } | { failure: Error };

function revive(received: Received): Chunk | 'done' {
  if ('chunk' in received) {
    const json = received.chunk.eventsJson;
    return { ...received.chunk, eventsJson: Buffer.from(json.buffer, json.byteOffset, json.byteLength) };
  }
  if ('done' in received) return 'done';
  if ('failure' in received) throw received.failure;
  if ('exitCode' in received) throw new Error(`reading the staging file stopped (worker exit code ${received.exitCode})`);
  const error = new Error(`reading the staging file failed: ${received.error.message}`);
  error.stack = received.error.stack;
  throw error;
}

export async function* readChunksOnWorker(setup: ChunkReaderSetup, readAhead = DEFAULT_READ_AHEAD): AsyncGenerator<Chunk> {
  const worker = new Worker(new URL('./chunk-reader-worker.js', import.meta.url), { workerData: setup });
  const inbox: Received[] = [];
  let wake: (() => void) | undefined;
  const receive = (received: Received): void => {
    inbox.push(received);
    wake?.();
  };
  worker.on('message', (message: ReaderMessage) => receive(message));
  worker.on('error', (failure: Error) => receive({ failure }));
  worker.on('exit', (exitCode: number) => receive({ exitCode }));
  worker.postMessage({ credits: readAhead });
  try {
    for (;;) {
      while (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const next = revive(inbox.shift()!);
      if (next === 'done') return;
      worker.postMessage({ credits: 1 });
      yield next;
    }
  } finally {
    await worker.terminate();
  }
}
