/**
 * A worker thread that reads and checks pieces of one file and answers them prepared, as
 * columns (see EventBatch) whose buffers move to the parent. It never opens the staging file:
 * the parent writes every piece, through one connection, in file order.
 */
import { workerData } from 'node:worker_threads';
import { findFormat } from '../sources/formats.js';
import { batchTransferList } from '../staging/event-batch.js';
import { serveRequests } from '../util/worker-bridge.js';
import type { TextPiece } from './piece-splitter.js';
import type { StageWorkerData } from './piece-pool.js';
import { pieceContext, preparePiece, type PreparedPiece } from './stage-piece.js';
import { loadTransform } from './transform-module.js';

const setup = workerData as StageWorkerData;
// The transform is imported once here, on the thread that calls it for each row.
const context = pieceContext(setup, findFormat(setup.format)!.reader, await loadTransform(setup.rules.transform));

serveRequests<TextPiece, PreparedPiece>(
  async (piece) => {
    try {
      return await preparePiece(context, piece);
    } finally {
      // Counted before the answer is posted: the parent reads the load while too busy to receive it.
      Atomics.add(setup.finished, setup.index, 1);
    }
  },
  (prepared) => batchTransferList(prepared.events),
);
