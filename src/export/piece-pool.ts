/**
 * Where pieces are staged: in-process for small files (no thread start-up), or on worker
 * threads for large ones, each with its own SQLite connection and a larger young generation
 * (staging makes many short-lived strings; a small nursery spends a third of the time in GC).
 */
import { Worker } from 'node:worker_threads';
import { InputError, MigrateError } from '../errors.js';
import { rulesFromSpec, type RulesSpec } from '../events/rules-spec.js';
import type { ReaderOptions, SourceReader } from '../sources/source-item.js';
import type { EventWriter } from '../staging/event-writer.js';
import type { TextPiece } from './piece-splitter.js';
import { stagePiece, type PieceResult } from './stage-piece.js';

export interface WorkerSetup {
  stagingPath: string;
  readId: number;
  format: string;
  readerOptions: ReaderOptions;
  rules: RulesSpec;
  prefix: string;
}

export interface PiecePool {
  stage(piece: TextPiece): Promise<PieceResult>;
  close(): Promise<void>;
}

/** Young generation of each worker, in MB. */
const WORKER_YOUNG_GENERATION_MB = 64;

export function inlinePool(setup: WorkerSetup, reader: SourceReader, writer: EventWriter): PiecePool {
  const context = { readId: setup.readId, reader, readerOptions: setup.readerOptions, rules: rulesFromSpec(setup.rules), writer, prefix: setup.prefix };
  return { stage: (piece) => stagePiece(context, piece), close: async () => {} };
}

/** Errors come back from a worker as plain data; the input errors keep their class (exit code). */
function revive(error: { name: string; message: string; stack?: string }): Error {
  if (error.name === 'InputError') return new InputError(error.message);
  const revived = error.name === 'MigrateError' ? new MigrateError(error.message, 1) : new Error(error.message);
  revived.stack = error.stack;
  return revived;
}

export function workerPool(setup: WorkerSetup, count: number): PiecePool {
  const url = new URL('./stage-worker.js', import.meta.url);
  const pending = new Map<number, { resolve: (r: PieceResult) => void; reject: (e: Error) => void }>();
  const load: number[] = [];
  const exited: boolean[] = [];
  const workers = Array.from({ length: count }, (_, index) => {
    const worker = new Worker(url, { workerData: setup, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
    load[index] = 0;
    worker.once('exit', () => (exited[index] = true));
    worker.on('message', (message: { id: number; result?: PieceResult; error?: { name: string; message: string; stack?: string } }) => {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      load[index]!--;
      if (message.error) waiter?.reject(revive(message.error));
      else waiter?.resolve(message.result!);
    });
    worker.on('error', (error) => {
      for (const waiter of pending.values()) waiter.reject(error);
      pending.clear();
    });
    return worker;
  });
  let nextId = 0;
  return {
    stage(piece) {
      const index = load.indexOf(Math.min(...load));
      load[index]!++;
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        workers[index]!.postMessage({ id, piece });
      });
    },
    async close() {
      await Promise.all(
        workers.map(
          (worker, index) =>
            new Promise<void>((resolve) => {
              if (exited[index]) return resolve();
              worker.once('exit', () => resolve());
              worker.postMessage({ close: true });
            }),
        ),
      );
    },
  };
}
