/**
 * The worker thread of chunk-reader.ts: reads pending pages through its own connection to the
 * staging file (the parent holds the staging lock and writes the checkpoints) and posts the
 * chunks in send order, one per credit the parent gives.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { chunkStream } from '../delivery/chunk-stream.js';
import { PendingEvents } from '../staging/delivery-store.js';
import { StagingStore } from '../staging/staging-store.js';
import type { ChunkReaderSetup, ReaderMessage } from './chunk-reader.js';

const setup = workerData as ChunkReaderSetup;
/**
 * Pages read in one snapshot: the parent's checkpoint commits would otherwise empty this
 * connection's page cache before nearly every page. A snapshot this long keeps the WAL short.
 */
const SNAPSHOT_PAGES = 32;
const port = parentPort!;
let credits = 0;
let wake: (() => void) | undefined;
port.on('message', (message: { credits: number }) => {
  credits += message.credits;
  wake?.();
});

const post = (message: ReaderMessage): void => port.postMessage(message);

async function read(): Promise<void> {
  const store = StagingStore.open(setup.stagingPath, { mustExist: true });
  const pending = new PendingEvents(store, setup.projectId, SNAPSHOT_PAGES);
  try {
    for (const chunk of chunkStream(pending, setup.limits, setup.maxEvents)) {
      while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
      credits--;
      // A chunk's bytes move to the parent rather than being copied, when they fill a memory
      // block of their own (small ones share Node's pool and must be copied).
      const json = chunk.eventsJson;
      port.postMessage({ chunk }, json.byteOffset === 0 && json.buffer.byteLength === json.length ? [json.buffer as ArrayBuffer] : []);
    }
    post({ done: true });
  } finally {
    pending.close();
    store.close();
  }
}

read().catch((error: unknown) => {
  const err = error instanceof Error ? error : new Error(String(error));
  post({ error: { message: err.message, stack: err.stack } });
});
