/**
 * Where pieces are staged. Small runs: read and written in-process (no thread start-up).
 * Large ones: read and checked on worker threads in parallel, then written here, in the order
 * the pieces were handed out. One pool serves every file of a run: the workers start once, and
 * a file's pieces are read while the pieces of the file before are still being written (an
 * Amplitude export is thousands of small files). One connection does every write: SQLite
 * allows one writer at a time, and a connection whose cache another connection's writes
 * invalidated spends far longer per row. Writing takes this thread less time than reading
 * takes a worker, so when every worker has a piece waiting, this thread reads the next piece
 * itself.
 */
import { InterruptedError } from '../errors.js';
import type { RowTransform } from '../events/row-steps.js';
import type { RulesSpec } from '../events/rules-spec.js';
import type { PieceProgress } from '../staging/source-reads.js';
import type { ReaderOptions, SourceReader } from '../sources/source-item.js';
import { InFlight } from '../util/in-flight.js';
import { startWorker } from '../util/worker-bridge.js';
import type { TextPiece } from './piece-splitter.js';
import { pieceContext, preparePiece, writePiece, type PieceContext, type PieceTarget, type PreparedPiece } from './stage-piece.js';

/** How one file's pieces are read: plain data, sent to every worker once per file. */
export interface WorkerSetup {
  format: string;
  readerOptions: ReaderOptions;
  rules: RulesSpec;
  prefix: string;
}

/** What a worker is started with: where it counts the pieces it finished. */
export interface StageWorkerData {
  finished: Int32Array;
  index: number;
}

/** A worker's requests: a file's setup, under a key its pieces name; or a piece to read. */
export type StageRequest = { define: number; setup: WorkerSetup } | { key: number; piece: TextPiece };

/** A file of the run: its key, how its pieces are read here, and where they are written. */
export interface PoolFile {
  key: number;
  setup: WorkerSetup;
  context: PieceContext;
  target: PieceTarget;
  /** Its setup was sent to the workers (with its first piece one of them reads). */
  defined: boolean;
}

/**
 * Young generation of each worker, in MB: reading a piece makes short-lived objects only (the
 * events leave as byte columns), so a small nursery costs little time and keeps memory flat.
 */
const WORKER_YOUNG_GENERATION_MB = 16;
/**
 * Old generation of each worker, in MB, when the run has no transform: a piece's rows (1 MiB of
 * text, a row at most about 3 MiB of UTF-8) live a few MB at most, and without a bound V8 let
 * the heap grow to 60 or 70 MB between its collections (measured: a quarter less resident
 * memory for the process, at the same speed). A transform is the user's code: its heap is not
 * bounded here.
 */
const WORKER_OLD_GENERATION_MB = 64;
/**
 * Pieces a worker holds at once (one being read, the rest waiting). Deep enough that it seldom
 * runs dry while this thread reads a piece itself or writes (measured: with 2 it sat idle a
 * quarter of the time; 4 was no faster than 3 and cost 10 to 40 MB more at peak).
 */
const PIECES_PER_WORKER = 3;

interface Preparers {
  /** True when a worker holds fewer than PIECES_PER_WORKER pieces. */
  hasRoom(): boolean;
  /** Sends a file's setup to every worker, before its pieces. */
  define(key: number, setup: WorkerSetup): void;
  /** Resolves with the piece read and checked by the least busy worker. */
  prepare(key: number, piece: TextPiece): Promise<PreparedPiece>;
  close(): Promise<void>;
  /** Stops every worker at once, whatever it is doing; the pieces they hold fail with `reason`. */
  terminate(reason: Error): Promise<void>;
}

/** @param bounded bound each worker's old generation (see WORKER_OLD_GENERATION_MB) */
function preparers(count: number, bounded: boolean): Preparers {
  const url = new URL('./stage-worker.js', import.meta.url);
  // Pieces handed to each worker, and (in shared memory, counted by the worker itself) pieces it
  // finished: their difference is what it holds now, even while this thread is too busy to
  // receive its messages. Counting by messages made this thread read pieces itself while the
  // worker sat idle with its answers unread.
  const posted: number[] = new Array(count).fill(0);
  const finished = new Int32Array(new SharedArrayBuffer(count * Int32Array.BYTES_PER_ELEMENT));
  const load = (index: number): number => posted[index]! - Atomics.load(finished, index);
  const workers = Array.from({ length: count }, (_, index) => {
    const workerData: StageWorkerData = { finished, index };
    const resourceLimits = { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB, ...(bounded ? { maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB } : {}) };
    return startWorker<StageRequest, PreparedPiece | null>(url, { workerData, resourceLimits });
  });
  const leastBusy = (): number => {
    let best = 0;
    for (let i = 1; i < count; i++) if (load(i) < load(best)) best = i;
    return best;
  };
  return {
    hasRoom: () => load(leastBusy()) < PIECES_PER_WORKER,
    define(key, setup) {
      // Messages arrive in order: every piece of the file comes after its setup.
      for (const worker of workers) void worker.call({ define: key, setup }).catch(() => {});
    },
    prepare(key, piece) {
      const index = leastBusy();
      posted[index]!++;
      return workers[index]!.call({ key, piece }) as Promise<PreparedPiece>;
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.close()));
    },
    async terminate(reason) {
      await Promise.all(workers.map((worker) => worker.terminate(reason)));
    },
  };
}

function transformInterrupted(): InterruptedError {
  return new InterruptedError('interrupted while a transform was reading rows');
}

/** Pieces staged at once by a pool of `count` workers (and this thread). */
export function piecesInFlight(count: number): number {
  return count > 0 ? count * PIECES_PER_WORKER + 2 : 1;
}

/** One transaction several writes share (EventWriter's), each write atomic within it. */
export interface SharedTransaction {
  openShared(): void;
  commitShared(): void;
}

/**
 * Rows written in one commit, at least, when pieces come one after another: a commit writes
 * every page its rows touched, and rows with random uuids (Amplitude's) touch a page of the
 * uuid index each (measured on an Amplitude export: commits per piece took four times longer
 * than the staging of their rows' other work on this thread; every 4,096 rows, a fifth).
 */
const ROWS_PER_COMMIT = 4096;

/**
 * The pieces of a run, read (by workers or here) and written in the order they were staged.
 * After a failure nothing more is written: the read it belongs to is about to be undone, and a
 * piece written after that would be half a file staged.
 */
export class PiecePool {
  private workers: Preparers | undefined;
  /** The run has a transform: its pieces are read on workers only, and an interrupt stops them at once. */
  private transformed = false;
  private nextKey = 0;
  private lastWrite: Promise<unknown> = Promise.resolve();
  private failure: unknown;
  private readonly inFlight = new InFlight();
  /** Writes queued and not yet done, rows written since the last commit, and what to tell once it is made. */
  private queued = 0;
  private uncommittedRows = 0;
  private afterCommit: Array<() => void> = [];

  /**
   * @param workerCount worker threads, started with the first file; 0 reads every piece here
   *   (a run with a transform has one at least).
   * @param shared the transaction consecutive writes share (else each commits its own).
   * @param signal the run's interrupt: with a transform, it stops the workers at once.
   */
  constructor(
    private readonly workerCount: number,
    private readonly shared?: SharedTransaction,
    private readonly signal?: AbortSignal,
  ) {
    signal?.addEventListener('abort', () => this.interrupt(), { once: true });
  }

  /**
   * A transform is the user's code, and may never return (a loop, a wait on something that never
   * comes): its pieces are read on worker threads, never here, so this thread stays free to take
   * Ctrl-C; and on an interrupt those workers are stopped rather than waited for. The pieces they
   * held were not written: a resumed read reads them again.
   */
  private interrupt(): void {
    if (!this.transformed || this.workers === undefined) return;
    void this.workers.terminate(transformInterrupted());
  }

  /** A file whose pieces come next; `transform` is the module of `setup.rules.transform`, loaded on this thread. */
  addFile(setup: WorkerSetup, reader: SourceReader, target: PieceTarget, transform: RowTransform | undefined): PoolFile {
    return { key: this.nextKey++, setup, context: pieceContext(setup, reader, transform), target, defined: false };
  }

  /** Where a piece is read: by the least busy worker, or here when every worker holds enough. */
  private prepare(file: PoolFile, piece: TextPiece): Promise<PreparedPiece> {
    this.transformed ||= file.setup.rules.transform !== undefined;
    const count = this.transformed ? Math.max(1, this.workerCount) : this.workerCount;
    if (this.transformed && this.signal?.aborted) return Promise.reject(transformInterrupted());
    if (count > 0) this.workers ??= preparers(count, !this.transformed);
    if (this.workers === undefined || (!this.transformed && !this.workers.hasRoom())) return preparePiece(file.context, piece);
    // Sent with the file's first piece a worker reads, so workers only ever hold the contexts
    // of files with pieces in flight (see stage-worker.ts).
    if (!file.defined) this.workers.define(file.key, file.setup);
    file.defined = true;
    return this.workers.prepare(file.key, piece);
  }

  /**
   * Stages a piece: read by the least busy worker (or here, when every worker holds enough),
   * then written after every piece staged before it, with `progress`, where the read stands
   * once it is written. Resolves once the piece is handed out and fewer than the bound are in
   * flight; `onWritten` is told its counts.
   */
  async stage(file: PoolFile, piece: TextPiece, progress: PieceProgress, onWritten: () => void): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    const prepared = this.prepare(file, piece);
    // Awaited by the write; a write that never runs (after a failure) leaves its rejection handled.
    prepared.catch(() => {});
    const written = this.write(
      async () => {
        const result = await writePiece(file.context, file.target, piece, await prepared, progress);
        this.uncommittedRows += result.rowsRead;
        return result;
      },
      { piece: true, committed: onWritten },
    );
    this.inFlight.add(written.catch(() => {}));
    await this.inFlight.below(piecesInFlight(this.workerCount));
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * Runs `task` after every write queued before it (a file's first and last writes: its read
   * begun and finished). A failure stops every write queued after it, which fails with it.
   *
   * With a shared transaction, consecutive writes share it: it is committed after a piece once
   * ROWS_PER_COMMIT rows were written in it, when no write waits, and when a task fails. Each
   * piece is committed with the point its read reached (a read resumes after its last
   * committed piece); a file's first and last writes join the pieces around them (an Amplitude
   * export's thousands of small files spent more on three commits each than on their rows). A
   * task fails atomically (its own transactions are savepoints), and the writes before it stay
   * committed, as if each had committed itself. `committed` is called once the write is.
   */
  write<T>(task: () => T | Promise<T>, options: { piece?: boolean; committed?: () => void } = {}): Promise<T> {
    this.queued++;
    const run = this.lastWrite.then(async () => {
      try {
        if (this.failure !== undefined) throw this.failure;
        this.shared?.openShared();
        const value = await task();
        if (options.committed !== undefined) this.afterCommit.push(options.committed);
        return value;
      } catch (error) {
        this.commit();
        throw error;
      } finally {
        this.queued--;
        if ((options.piece === true && this.uncommittedRows >= ROWS_PER_COMMIT) || this.queued === 0) this.commit();
      }
    });
    this.lastWrite = run.catch((error: unknown) => void (this.failure ??= error));
    return run;
  }

  private commit(): void {
    this.shared?.commitShared();
    this.uncommittedRows = 0;
    const told = this.afterCommit;
    this.afterCommit = [];
    for (const tell of told) tell();
  }

  /** Resolves once everything staged so far is written; throws the failure, if any. */
  async drain(): Promise<void> {
    await this.inFlight.drain();
    await this.lastWrite;
    if (this.failure !== undefined) throw this.failure;
  }

  /** Resolves once nothing is being written, whether or not it all succeeded. */
  async settled(): Promise<void> {
    await this.inFlight.drain();
    await this.lastWrite;
  }

  async close(): Promise<void> {
    await this.settled();
    await this.workers?.close();
  }
}
