/**
 * Where pieces are staged. Small files: read and written in-process (no thread start-up).
 * Large ones: read and checked on worker threads in parallel, then written here, in the order
 * the pieces were handed out. One connection does every write: SQLite allows one writer at a
 * time, and a connection whose cache another connection's writes invalidated spends far
 * longer per row. Writing takes this thread less time than reading takes a worker, so when
 * every worker has a piece waiting, this thread reads the next piece itself.
 */
import type { RulesSpec } from '../events/rules-spec.js';
import type { PieceProgress } from '../staging/source-reads.js';
import type { ReaderOptions, SourceReader } from '../sources/source-item.js';
import { startWorker } from '../util/worker-bridge.js';
import type { TextPiece } from './piece-splitter.js';
import { pieceContext, preparePiece, writePiece, type PieceResult, type PieceTarget, type PreparedPiece } from './stage-piece.js';

export interface WorkerSetup {
  format: string;
  readerOptions: ReaderOptions;
  rules: RulesSpec;
  prefix: string;
}

/** What a worker is started with: the setup, and where it counts the pieces it finished. */
export interface StageWorkerData extends WorkerSetup {
  finished: Int32Array;
  index: number;
}

export interface PiecePool {
  /** Stages a piece; `progress` is where the read stands once it is written. */
  stage(piece: TextPiece, progress: PieceProgress): Promise<PieceResult>;
  close(): Promise<void>;
}

/**
 * Young generation of each worker, in MB: reading a piece makes short-lived objects only (the
 * events leave as byte columns), so a small nursery costs little time and keeps memory flat.
 */
const WORKER_YOUNG_GENERATION_MB = 16;
/**
 * Pieces a worker holds at once (one being read, the rest waiting). Deep enough that it seldom
 * runs dry while this thread reads a piece itself or writes (measured: with 2 it sat idle a
 * quarter of the time; 4 was no faster than 3 and cost 10 to 40 MB more at peak).
 */
const PIECES_PER_WORKER = 3;

export function inlinePool(setup: WorkerSetup, reader: SourceReader, target: PieceTarget): PiecePool {
  const context = pieceContext(setup, reader);
  return {
    stage: async (piece, progress) => writePiece(context, target, piece, await preparePiece(context, piece), progress),
    close: async () => {},
  };
}

interface Preparers {
  /** True when a worker holds fewer than PIECES_PER_WORKER pieces. */
  hasRoom(): boolean;
  /** Resolves with the piece read and checked by the least busy worker. */
  prepare(piece: TextPiece): Promise<PreparedPiece>;
  close(): Promise<void>;
}

function preparers(setup: WorkerSetup, count: number): Preparers {
  const url = new URL('./stage-worker.js', import.meta.url);
  // Pieces handed to each worker, and (in shared memory, counted by the worker itself) pieces it
  // finished: their difference is what it holds now, even while this thread is too busy to
  // receive its messages. Counting by messages made this thread read pieces itself while the
  // worker sat idle with its answers unread.
  const posted: number[] = new Array(count).fill(0);
  const finished = new Int32Array(new SharedArrayBuffer(count * Int32Array.BYTES_PER_ELEMENT));
  const load = (index: number): number => posted[index]! - Atomics.load(finished, index);
  const workers = Array.from({ length: count }, (_, index) => {
    const workerData: StageWorkerData = { ...setup, finished, index };
    return startWorker<TextPiece, PreparedPiece>(url, { workerData, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
  });
  const leastBusy = (): number => {
    let best = 0;
    for (let i = 1; i < count; i++) if (load(i) < load(best)) best = i;
    return best;
  };
  return {
    hasRoom: () => load(leastBusy()) < PIECES_PER_WORKER,
    prepare(piece) {
      const index = leastBusy();
      posted[index]!++;
      return workers[index]!.call(piece);
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.close()));
    },
  };
}

/** Pieces staged at once by a pool of `count` workers (and this thread). */
export function piecesInFlight(count: number): number {
  return count * PIECES_PER_WORKER + 2;
}

export function workerPool(setup: WorkerSetup, reader: SourceReader, target: PieceTarget, count: number): PiecePool {
  const workers = preparers(setup, count);
  const context = pieceContext(setup, reader);
  // Pieces are written in the order stage() was called: each write waits for the one before.
  // After a failure nothing more is written: the file's read is about to be undone, and a
  // piece written after that would be half a file staged.
  let lastWrite: Promise<unknown> = Promise.resolve();
  let failure: unknown;
  return {
    stage(piece, progress) {
      const prepared = workers.hasRoom() ? workers.prepare(piece) : preparePiece(context, piece);
      const written = lastWrite.then(async () => {
        const ready = await prepared;
        if (failure !== undefined) throw failure;
        return writePiece(context, target, piece, ready, progress);
      });
      lastWrite = written.catch((error: unknown) => void (failure ??= error));
      return written;
    },
    async close() {
      await lastWrite;
      await workers.close();
    },
  };
}
