/**
 * The worker thread of chunk-reader.ts: reads pending pages through its own connection to the
 * staging file (the parent holds the staging lock and writes the checkpoints) and answers each
 * request with the next chunk in send order, its bytes moved to the parent, or null at the end.
 */
import { workerData } from 'node:worker_threads';
import type { Chunk } from '../delivery/chunker.js';
import { compressSync } from '../delivery/batch-sender.js';
import { chunkPersons, type PersonOf } from '../delivery/chunk-persons.js';
import { chunkStream } from '../delivery/chunk-stream.js';
import { batchBody } from '../delivery/event-encoding.js';
import { EventKind } from '../events/staged-event.js';
import { PendingEvents } from '../staging/delivery-store.js';
import { stagedPersonLinks } from '../staging/person-links.js';
import { IMPORT_CACHE_BLOCKS } from '../staging/send-order-repack.js';
import { stagingFailure } from '../staging/staging-failure.js';
import { StagingStore } from '../staging/staging-store.js';
import { freeBuffer } from '../util/free-buffer.js';
import { serveRequests } from '../util/worker-bridge.js';
import type { ChunkReaderSetup, ReaderAnswer } from './chunk-reader.js';

const setup = workerData as ChunkReaderSetup;
/**
 * Pages read in one snapshot: the parent's checkpoint commits would otherwise empty this
 * connection's page cache before nearly every page. A snapshot this long keeps the WAL short.
 */
const SNAPSHOT_PAGES = 32;
/**
 * SQLite page cache of the reading connection, in MiB. Its pages are read once each, in send
 * order, and the parent's commits empty the cache at each snapshot anyway: the default 16 MB
 * only held pages never read again (they count in the process's resident memory).
 */
const READER_CACHE_MB = 4;

/** The persons linked by staged person updates, read with the first chunk. */
let personOf: PersonOf = (id) => id;

/** The chunks, the staging file opened on the first and closed after the last (or a failure). */
function* readChunks(): Generator<Chunk> {
  const store = StagingStore.open(setup.stagingPath, { mustExist: true, cacheMb: READER_CACHE_MB, blockCacheBlocks: IMPORT_CACHE_BLOCKS });
  const pending = new PendingEvents(store, setup.projectId, SNAPSHOT_PAGES, setup.order);
  try {
    personOf = stagedPersonLinks(store);
    yield* chunkStream(pending, setup.limits, setup.maxEvents);
  } finally {
    pending.close();
    store.close();
  }
}

type Answer = NonNullable<ReaderAnswer>;

/** The chunks as answered: each with its compressed body instead of its events' JSON when the run asked for it. */
function* answers(chunks: Generator<Chunk>): Generator<Answer> {
  const apiKey = setup.gzipApiKey;
  for (const { kind, seqs, ends, bytes, eventsJson } of chunks) {
    // Person and group updates go one at a time anyway (see chunk-dispatcher.ts).
    const persons = kind === EventKind.event ? { persons: chunkPersons(eventsJson, ends, personOf) } : {};
    if (apiKey === undefined) {
      yield { kind, seqs, ends, bytes, eventsJson, ...persons };
      continue;
    }
    const body = batchBody(apiKey, eventsJson);
    const gzipBody = compressSync(body);
    // The uncompressed copies (seven times the compressed size) are spent: freed now, not when a
    // collection finds them (see freeBuffer).
    freeBuffer(body);
    freeBuffer(eventsJson);
    yield { kind, seqs, ends, bytes, gzipBody, ...persons };
  }
}

const chunks = answers(readChunks());

/** Whether `bytes` fills its memory block (Node's pool holds small buffers, which cannot move). */
const ownsBlock = (bytes: Uint8Array): boolean => bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length;

serveRequests<'next', ReaderAnswer>(
  () => {
    try {
      const step = chunks.next();
      return step.done ? null : step.value;
    } catch (error) {
      // A damaged page or a failing disk, explained (it reaches the parent as a StagingError).
      throw stagingFailure(error, setup.stagingPath, { reading: true });
    }
  },
  // A chunk's bytes move to the parent rather than being copied, when they fill a memory
  // block of their own (small ones share Node's pool and must be copied).
  (answer) => {
    const bytes = answer === null ? undefined : 'eventsJson' in answer ? answer.eventsJson : answer.gzipBody;
    return bytes !== undefined && ownsBlock(bytes) ? [bytes.buffer as ArrayBuffer] : [];
  },
);
