/**
 * Stages one source file: cuts its text into pieces on record boundaries, stages the pieces
 * (in-process, or on worker threads for large files), and adds up their counts. Every row is
 * tied to the file's read, which is undone as a whole if the file fails or the user
 * interrupts: a file is staged completely or not at all. Shared by every staging command.
 */
import { availableParallelism } from 'node:os';
import { InputError, InterruptedError, RefusedError } from '../errors.js';
import type { RulesSpec } from '../events/rules-spec.js';
import type { SourceInput } from '../sources/open-input.js';
import type { ReaderOptions, SourceFormat } from '../sources/source-item.js';
import type { EventWriter } from '../staging/event-writer.js';
import { abandonRead, beginRead, finishRead, previousReadOptions, type ReadCounts } from '../staging/source-reads.js';
import type { StagingStore } from '../staging/staging-store.js';
import { InFlight } from '../util/in-flight.js';
import { inlinePool, piecesInFlight, workerPool, type PiecePool, type WorkerSetup } from './piece-pool.js';
import { PieceSplitter, type TextPiece } from './piece-splitter.js';
import { emptyResult, SHOWN_REJECTS, type PieceResult } from './stage-piece.js';

export interface StageFileOptions {
  store: StagingStore;
  writer: EventWriter;
  input: SourceInput;
  format: string;
  source: SourceFormat;
  readerOptions: Omit<ReaderOptions, 'displayName'>;
  command: string;
  rules: RulesSpec;
  /** Recorded with the read: the options that shape staged content. */
  recordedOptions: Record<string, unknown>;
  /**
   * Timestamp (UTC ms) for rows without one (person and group updates). The first read of a
   * file records it and later reads reuse it, so derived uuids stay the same across runs.
   */
  defaultTimestampMs?: number;
  /** Worker threads; 0 stages in-process. Default: one fewer than the cores (at least one) for files of 8 MiB or more and streams, else 0. */
  workers?: number;
  signal?: AbortSignal;
  /** Called after each piece with the counts so far. */
  onProgress?: (counts: ReadCounts) => void;
}

export interface FileSummary extends PieceResult {
  path: string;
  displayName: string;
  fingerprint: string | undefined;
}

const WORKERS_FROM_BYTES = 8 * 1024 * 1024;

/**
 * Options that decide an event's timestamp also decide its derived uuid. Re-reading a file
 * with another time zone or other columns would stage rows a second time at another time, so
 * it is refused. Adding --timezone where there was none is allowed: rows with a zone keep their
 * times and uuids, and only the rows rejected for having no zone are new.
 */
function refuseChangedTimeOptions(input: SourceInput, previous: Record<string, unknown> | undefined, recorded: Record<string, unknown>): void {
  if (previous === undefined) return;
  const changed = (name: string): boolean => JSON.stringify(previous[name] ?? null) !== JSON.stringify(recorded[name] ?? null);
  const zoneChanged = previous.timezone != null && recorded.timezone != null && changed('timezone');
  const name = zoneChanged ? 'timezone' : changed('columns') ? 'columns' : undefined;
  if (name === undefined) return;
  throw new RefusedError(
    `${input.displayName} was staged earlier with ${name} ${JSON.stringify(previous[name])}; now ${JSON.stringify(recorded[name])}`,
    ['Its events would be staged again at other times. Pass the same option, or use a new staging file (--staging) to start over.'],
  );
}

function addPiece(summary: FileSummary, piece: PieceResult): void {
  for (const key of ['rowsRead', 'staged', 'alreadyStaged', 'duplicates', 'skipped', 'rejected', 'recent'] as const) summary[key] += piece[key];
  for (const [reason, n] of Object.entries(piece.rejectedByReason)) summary.rejectedByReason[reason] = (summary.rejectedByReason[reason] ?? 0) + n;
  summary.firstRejects = [...summary.firstRejects, ...piece.firstRejects].sort((a, b) => a.line - b.line).slice(0, SHOWN_REJECTS);
}

/** Feeds pieces to the pool with at most `limit` in flight; the first failure wins. */
class Dispatcher {
  private readonly inFlight = new InFlight();
  private failure: Error | undefined;

  constructor(private readonly pool: () => PiecePool, private readonly limit: number, private readonly onResult: (r: PieceResult) => void) {}

  async add(piece: TextPiece): Promise<void> {
    if (this.failure) throw this.failure;
    this.inFlight.add(this.pool().stage(piece).then(this.onResult, (error: Error) => void (this.failure ??= error)));
    await this.inFlight.below(this.limit);
    if (this.failure) throw this.failure;
  }

  async drain(): Promise<void> {
    await this.inFlight.drain();
    if (this.failure) throw this.failure;
  }
}

async function stagePieces(options: StageFileOptions, readId: number, setup: WorkerSetup, summary: FileSummary): Promise<void> {
  const { input } = options;
  // This thread writes and reads pieces too, so one worker fewer than cores keeps them all busy.
  const workers = options.workers ?? (input.sizeBytes >= WORKERS_FROM_BYTES || input.sizeBytes < 0 ? Math.max(1, availableParallelism() - 1) : 0);
  const splitter = new PieceSplitter(options.source.layout, { ...options.readerOptions, name: input.displayName });
  let pool: PiecePool | undefined;
  const getPool = (): PiecePool => {
    setup.prefix = splitter.header ?? '';
    const target = { readId, writer: options.writer };
    pool ??= workers > 0 ? workerPool(setup, options.source.reader, target, workers) : inlinePool(setup, options.source.reader, target);
    return pool;
  };
  const dispatcher = new Dispatcher(getPool, workers > 0 ? piecesInFlight(workers) : 1, (piece) => {
    addPiece(summary, piece);
    options.onProgress?.(summary);
  });
  try {
    for await (const text of input.text) {
      for (const piece of splitter.push(text)) await dispatcher.add(piece);
      if (options.signal?.aborted) {
        await dispatcher.drain();
        throw new InterruptedError(`interrupted while staging ${input.displayName}; nothing from it was staged`, [
          'Run the same command again: files already staged are recognised.',
        ]);
      }
    }
    for (const piece of splitter.end()) await dispatcher.add(piece);
    if (options.source.layout === 'csv' && splitter.header === undefined) throw new InputError(`${input.displayName}: the file is empty (no header row)`);
    await dispatcher.drain();
  } finally {
    await pool?.close();
  }
}

export async function stageFile(options: StageFileOptions): Promise<FileSummary> {
  const { store, input } = options;
  const previous = previousReadOptions(store, input.path);
  refuseChangedTimeOptions(input, previous, options.recordedOptions);
  const defaultTimestampMs = (previous?.defaultTimestampMs as number | undefined) ?? options.defaultTimestampMs;
  const recordedOptions = defaultTimestampMs === undefined ? options.recordedOptions : { ...options.recordedOptions, defaultTimestampMs };
  const readId = beginRead(store, { path: input.path, format: options.format, command: options.command, sizeBytes: input.sizeBytes, options: recordedOptions });
  const summary: FileSummary = { ...emptyResult(), path: input.path, displayName: input.displayName, fingerprint: undefined };
  const setup: WorkerSetup = {
    format: options.format,
    readerOptions: { ...options.readerOptions, displayName: input.displayName, defaultTimestampMs },
    rules: options.rules,
    prefix: '',
  };
  try {
    await stagePieces(options, readId, setup, summary);
  } catch (error) {
    abandonRead(store, readId, (error as Error).message);
    throw error;
  }
  summary.fingerprint = input.fingerprint();
  finishRead(store, readId, summary, summary.fingerprint);
  return summary;
}
