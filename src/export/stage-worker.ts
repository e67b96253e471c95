/**
 * A worker thread that stages pieces of one file through its own connection to the staging
 * file (the parent holds the staging lock; SQLite serialises the writes). Pieces are handled
 * one at a time, in the order they arrive.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { rulesFromSpec } from '../events/rules-spec.js';
import { SOURCE_FORMATS } from '../sources/formats.js';
import { EventWriter } from '../staging/event-writer.js';
import { StagingStore } from '../staging/staging-store.js';
import type { TextPiece } from './piece-splitter.js';
import { stagePiece, type PieceContext } from './stage-piece.js';
import type { WorkerSetup } from './piece-pool.js';

const setup = workerData as WorkerSetup;
const store = StagingStore.open(setup.stagingPath, { cacheMb: 16 });
const context: PieceContext = {
  readId: setup.readId,
  reader: SOURCE_FORMATS[setup.format]!.reader,
  readerOptions: setup.readerOptions,
  rules: rulesFromSpec(setup.rules),
  writer: new EventWriter(store),
  prefix: setup.prefix,
};

let queue: Promise<void> = Promise.resolve();
parentPort!.on('message', (message: { id: number; piece: TextPiece } | { close: true }) => {
  queue = queue.then(async () => {
    if ('close' in message) {
      store.close();
      parentPort!.close();
      return;
    }
    try {
      parentPort!.postMessage({ id: message.id, result: await stagePiece(context, message.piece) });
    } catch (error) {
      const err = error as Error & { exitCode?: number };
      parentPort!.postMessage({ id: message.id, error: { name: err.name, message: err.message, stack: err.stack } });
    }
  });
});
