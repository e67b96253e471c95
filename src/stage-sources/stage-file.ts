/**
 * Stages one source file: cuts it into pieces on record boundaries (piece-cuts.ts), stages the
 * pieces through the run's pool (in-process, or on worker threads) and adds up their counts.
 * Each piece is committed with the point the read reached, so an interrupted read is resumed
 * from its last piece by the next run; a read that fails on bad input is undone as a whole. At
 * the end of a file read before, the rows gone from it are withdrawn (see changed-file.ts).
 *
 * A file's reading overlaps the writing of the file before it: its read is begun, its pieces
 * written and its read finished in the pool's one order of writes (piece-pool.ts), so many
 * small files keep every thread busy as one large file does.
 */
import { availableParallelism } from 'node:os';
import { InputError, InterruptedError } from '../errors.js';
import type { SourceInput } from '../sources/open-input.js';
import type { ReadScope } from '../staging/event-writer.js';
import { abandonRead, addByReason, COUNT_KEYS, earlierReads, finishRead, recordProgress, type PieceProgress } from '../staging/source-reads.js';
import { withdrawnByRead } from '../staging/withdrawals.js';
import { addNotes } from '../events/source-notes.js';
import { recordGroupObservations } from '../staging/group-observations-store.js';
import { recordReadNotes } from '../staging/read-notes.js';
import { settleGoneRows } from './changed-file.js';
import { loadTransform } from './transform-module.js';
import type { FilePlan } from './file-plan.js';
import { beginNewRead, openRead, startSummary, type OpenedRead } from './open-read.js';
import { pieceCuts, writtenProgress, type CutProgress, type ReadStart } from './piece-cuts.js';
import { PiecePool, type PoolFile } from './piece-pool.js';
import { PieceSplitter } from './piece-splitter.js';
import { SHOWN_REJECTS, type PieceResult, type PieceTarget } from './stage-piece.js';
import { newProgress } from './text-progress.js';
import type { FileSummary, StageFileOptions } from './stage-file-options.js';

/** Files (or a run's files, together) of this many bytes or more are read on worker threads by default. */
const WORKERS_FROM_BYTES = 8 * 1024 * 1024;

/**
 * Text a Parquet file decodes to, per byte of the file: its columns are compressed and encoded
 * (dictionaries, run lengths), so its rows as text are many times its size (about 10x for a
 * PostHog batch export in zstd); its workers are chosen by that.
 */
const PARQUET_TEXT_PER_BYTE = 8;

/** The bytes of text an input is read as, for choosing workers: a Parquet file's estimated (see PARQUET_TEXT_PER_BYTE). */
export function textBytes(input: Pick<SourceInput, 'sizeBytes' | 'rowGroupRows'>): number {
  return input.rowGroupRows !== undefined && input.sizeBytes > 0 ? input.sizeBytes * PARQUET_TEXT_PER_BYTE : input.sizeBytes;
}

/** Worker threads for `bytes` of input (negative: a stream, whose size is not known): one fewer than the cores (this thread writes and reads pieces too), or none for small inputs. */
export function defaultWorkers(bytes: number): number {
  return bytes >= WORKERS_FROM_BYTES || bytes < 0 ? Math.max(1, availableParallelism() - 1) : 0;
}

function addPiece(summary: FileSummary, piece: PieceResult): void {
  for (const key of COUNT_KEYS) summary[key] += piece[key];
  addByReason(summary.rejectedByReason, piece.rejectedByReason);
  addByReason(summary.skippedByReason, piece.skippedByReason);
  summary.firstRejects = [...summary.firstRejects, ...piece.firstRejects].sort((a, b) => a.line - b.line).slice(0, SHOWN_REJECTS);
  addNotes(summary.notes, piece.notes);
}

/** The stop of a read that cannot be resumed: what it staged is undone. */
function notResumed(input: SourceInput): InterruptedError {
  const why = input.sizeBytes < 0 ? 'a stream cannot be read again' : "a JSON array's read cannot be resumed";
  return new InterruptedError(`interrupted while staging ${input.displayName}; nothing from it was staged (${why})`, [
    `Run the same command again${input.sizeBytes < 0 ? ' with the same data' : ''}: it is staged from the start, and files already staged are recognised.`,
  ]);
}

/** A file being staged: its read (once begun), where its pieces are written, its counts. */
interface FileRun {
  options: StageFileOptions;
  input: SourceInput;
  start: ReadStart;
  summary: FileSummary;
  target: PieceTarget;
  /** The read's id and its file's earlier reads, once its beginning was written. */
  begun: Promise<{ readId: number; earlier: ReturnType<typeof earlierReads> }>;
  /** The point the last written piece reached. */
  reached: PieceProgress | undefined;
  abandoned: boolean;
}

/** Opens the read: at once when it resumes or undoes an interrupted one (after every write before it), else in the order of writes. */
async function beginFile(options: StageFileOptions, plan: FilePlan, pool: PiecePool): Promise<FileRun> {
  const { store } = options;
  let opened: OpenedRead | undefined;
  if (plan.undo !== undefined || plan.resume?.progress != null) {
    await pool.drain();
    opened = await openRead(options, plan);
  }
  const input = opened?.input ?? options.input;
  const start: ReadStart = opened?.start ?? { text: input.text, tracker: newProgress(input), resumable: plan.resumable };
  const summary = startSummary(options, opened?.plan ?? plan, input);
  if (opened?.restarted !== undefined) summary.restarted = opened.restarted;
  const target: PieceTarget = { scope: { readId: -1 }, writer: options.writer, written: () => {}, observed: (groups) => recordGroupObservations(store, groups) };
  const begun = pool.write(() => {
    const readId = opened?.readId ?? beginNewRead(options, plan, input);
    // A stream's earlier reads under its name are other data (see file-plan.ts).
    const earlier = plan.stream ? { ids: [], liveRows: 0 } : earlierReads(store, input.path, readId);
    target.scope = {
      readId,
      earlierReads: earlier.ids.length > 0 ? new Set(earlier.ids) : undefined,
      replace: options.replaceChanged === true,
      timezone: (options.recordedOptions.timezone as string | null | undefined) ?? null,
    } satisfies ReadScope;
    return { readId, earlier };
  });
  begun.catch(() => {});
  return { options: { ...options, input }, input, start, summary, target, begun, reached: undefined, abandoned: false };
}

/** Runs a step of the pool, an interrupt that stopped a transform's workers being no failure of its own. */
async function unlessStopped(step: () => Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  try {
    await step();
  } catch (error) {
    if (!(signal?.aborted && error instanceof InterruptedError)) throw error;
  }
}

/** Once interrupted: every piece handed out is written (or stopped), and the read says where it stands. */
async function stopIfInterrupted(file: FileRun, pool: PiecePool): Promise<void> {
  const { options } = file;
  if (!options.signal?.aborted) return;
  await unlessStopped(() => pool.drain(), options.signal);
  throw interruptedAt(file);
}

/** Where an interrupted read stands: resumable from its last written piece, or not at all. */
function interruptedAt(file: FileRun): InterruptedError {
  const { input, start } = file;
  if (!start.resumable) return notResumed(input);
  return new InterruptedError(`interrupted while staging ${input.displayName}: staged up to line ${file.reached?.line ?? start.resume?.line ?? 1}`, [
    'Run the same command again: it resumes from there, and files already staged are recognised.',
  ]);
}

/** Cuts the file and hands every piece to the pool; returns once the last is handed out. */
async function dispatchPieces(file: FileRun, pool: PiecePool, defaultTimestampMs: number | undefined): Promise<void> {
  const { options, input, start, summary } = file;
  const splitter = new PieceSplitter(options.source.layout, { ...options.readerOptions, name: input.displayName, resume: start.resume, targetChars: options.pieceChars });
  const chars = { value: start.resume?.chars ?? 0 };
  file.target.written = (result: PieceResult, progress: CutProgress, textChars?: number) => {
    const point = writtenProgress(progress, chars, textChars, start.resumable);
    recordReadNotes(options.store, file.target.scope.readId, result.notes);
    addPiece(summary, result);
    recordProgress(options.store, file.target.scope.readId, point, summary, splitter.header);
    file.reached = point;
  };
  const transform = await loadTransform(options.rules.transform);
  let poolFile: PoolFile | undefined;
  const onWritten = (): void => options.onProgress?.(summary);
  for await (const batch of pieceCuts(input, options.source, splitter, start, options.bytePieces, options.pieceChars)) {
    for (const cut of batch) {
      // Made with the first piece: a CSV's header is known by then.
      poolFile ??= pool.addFile(
        { format: options.format, readerOptions: { ...options.readerOptions, displayName: input.displayName, defaultTimestampMs }, rules: options.rules, prefix: splitter.header ?? '' },
        options.source.reader,
        file.target,
        transform,
      );
      await unlessStopped(() => pool.stage(poolFile!, cut.piece, cut.progress, onWritten), options.signal);
      // A transform may hold its piece for ever: no batch end to wait for.
      if (options.signal?.aborted && poolFile.setup.rules.transform !== undefined) break;
    }
    await stopIfInterrupted(file, pool);
  }
  if (options.source.layout === 'csv' && splitter.header === undefined) throw new InputError(`${input.displayName}: the file is empty (no header row)`);
}

/**
 * After a failure, once nothing is being written: an interrupted read that can be resumed
 * stays partial; any other is undone as a whole (once). Returns the error to throw.
 */
async function failed(file: FileRun, pool: PiecePool, error: unknown): Promise<unknown> {
  await pool.settled();
  const resumable = error instanceof InterruptedError && file.start.resumable;
  const begun = await file.begun.catch(() => undefined);
  if (!resumable && begun !== undefined && !file.abandoned) {
    file.abandoned = true;
    abandonRead(file.options.store, begun.readId, (error as Error).message);
  }
  // Stopped by the pool (a transform's workers), it says where the read stands, as any interrupt.
  return error instanceof InterruptedError && (!resumable || file.options.signal?.aborted) ? interruptedAt(file) : error;
}

/** Written after the file's last piece: rows gone from a changed file settled, the read finished. */
async function finishFile(file: FileRun): Promise<FileSummary> {
  const { options, input, summary } = file;
  const { store } = options;
  const { readId, earlier } = await file.begun;
  summary.fingerprint = input.fingerprint();
  const refused = store.transaction(() => {
    const refusal = settleGoneRows(store, readId, earlier, options.replaceChanged === true, input.displayName);
    if (refusal === undefined) finishRead(store, readId, summary, summary.fingerprint, options.identity);
    return refusal;
  });
  if (refused !== undefined) {
    file.abandoned = true;
    abandonRead(store, readId, 'refused: rows gone from the changed file were already delivered');
    throw refused;
  }
  summary.withdrawn = withdrawnByRead(store, readId);
  return summary;
}

/** A file started: its summary, once its pieces are written and its read finished. */
export interface StartedFile {
  done: Promise<FileSummary>;
}

/**
 * Starts staging a file in the run's pool: resolves once its pieces are all handed out (the
 * file read); the next file may be started meanwhile.
 */
export async function startFile(options: StageFileOptions, plan: FilePlan, pool: PiecePool): Promise<StartedFile> {
  const defaultTimestampMs = (plan.latest?.options.defaultTimestampMs as number | undefined) ?? options.defaultTimestampMs;
  if (defaultTimestampMs !== undefined) options = { ...options, recordedOptions: { ...options.recordedOptions, defaultTimestampMs } };
  const file = await beginFile(options, plan, pool);
  try {
    await dispatchPieces(file, pool, defaultTimestampMs);
  } catch (error) {
    throw await failed(file, pool, error);
  }
  const done = pool
    .write(() => finishFile(file))
    .catch(async (error: unknown) => {
      throw await failed(file, pool, error);
    });
  done.catch(() => {});
  return { done };
}

/** Stages one file on its own pool (workers as StageFileOptions.workers says). */
export async function stageFile(options: StageFileOptions, plan: FilePlan): Promise<FileSummary> {
  const pool = new PiecePool(options.workers ?? defaultWorkers(textBytes(options.input)), undefined, options.signal);
  try {
    return await (await startFile(options, plan, pool)).done;
  } finally {
    await pool.close();
  }
}
