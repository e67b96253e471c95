/**
 * A worker thread that reads and checks pieces of the files of a run and answers them
 * prepared, as columns (see EventBatch) whose buffers move to the parent. Each file's setup
 * comes before its pieces, under a key its pieces name. It never opens the staging file: the
 * parent writes every piece, through one connection, in file order.
 */
import { workerData } from 'node:worker_threads';
import { findFormat } from '../sources/formats.js';
import { batchTransferList } from '../staging/event-batch.js';
import { serveRequests } from '../util/worker-bridge.js';
import type { StageRequest, StageWorkerData } from './piece-pool.js';
import { pieceContext, preparePiece, type PieceContext, type PreparedPiece } from './stage-piece.js';
import { loadTransform } from './transform-module.js';

const data = workerData as StageWorkerData;
/** Contexts of the files whose pieces may still come: the latest few (files come one after another). */
const contexts = new Map<number, PieceContext>();
const KEPT_CONTEXTS = 8;

serveRequests<StageRequest, PreparedPiece | null>(
  async (request) => {
    if ('define' in request) {
      // The transform is imported once here (the run's every file has the same), on the thread that calls it for each row.
      contexts.set(request.define, pieceContext(request.setup, findFormat(request.setup.format)!.reader, await loadTransform(request.setup.rules.transform)));
      for (const key of contexts.keys()) if (contexts.size > KEPT_CONTEXTS) contexts.delete(key);
      return null;
    }
    try {
      return await preparePiece(contexts.get(request.key)!, request.piece);
    } finally {
      // Counted before the answer is posted: the parent reads the load while too busy to receive it.
      Atomics.add(data.finished, data.index, 1);
    }
  },
  (prepared) => (prepared === null ? [] : batchTransferList(prepared.events)),
);
