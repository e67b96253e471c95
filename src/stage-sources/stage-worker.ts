/**
 * A worker thread that reads and checks pieces of one file and posts them back prepared, as
 * columns (see EventBatch). It never opens the staging file: the parent writes every piece,
 * through one connection, in file order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { findFormat } from '../sources/formats.js';
import { batchTransferList } from '../staging/event-batch.js';
import type { TextPiece } from './piece-splitter.js';
import { pieceContext, preparePiece } from './stage-piece.js';
import type { StageWorkerData } from './piece-pool.js';

export type WorkerRequest = { id: number; piece: TextPiece } | { close: true };

const setup = workerData as StageWorkerData;
const context = pieceContext(setup, findFormat(setup.format)!.reader);

let queue: Promise<void> = Promise.resolve();
parentPort!.on('message', (message: WorkerRequest) => {
  queue = queue.then(async () => {
    if ('close' in message) {
      parentPort!.close();
      return;
    }
    try {
      const prepared = await preparePiece(context, message.piece);
      Atomics.add(setup.finished, setup.index, 1);
      parentPort!.postMessage({ id: message.id, prepared }, batchTransferList(prepared.events));
    } catch (error) {
      Atomics.add(setup.finished, setup.index, 1);
      const err = error as Error;
      parentPort!.postMessage({ id: message.id, error: { name: err.name, message: err.message, stack: err.stack } });
    }
  });
});
