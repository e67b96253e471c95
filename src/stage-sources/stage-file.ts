/**
 * Stages one source file: cuts its text into pieces on record boundaries, stages the pieces
 * (in-process, or on worker threads for large files) and adds up their counts. Each piece is
 * committed with the point the read reached, so an interrupted read is resumed from its last
 * piece by the next run; a read that fails on bad input is undone as a whole. At the end of a
 * file read before, the rows gone from it are withdrawn (see changed-file.ts).
 */
import { availableParallelism } from 'node:os';
import { InputError, InterruptedError } from '../errors.js';
import type { RulesSpec } from '../events/rules-spec.js';
import type { SourceInput } from '../sources/open-input.js';
import type { ReaderOptions, SourceFormat } from '../sources/source-item.js';
import type { EventWriter, ReadScope } from '../staging/event-writer.js';
import { countLineEnds } from '../sources/line-ends.js';
import { abandonRead, addByReason, beginRead, COUNT_KEYS, earlierReads, finishRead, readRejects, recordProgress, supersedeRead, type PieceProgress, type ReadCounts } from '../staging/source-reads.js';
import type { StagingStore } from '../staging/staging-store.js';
import { withdrawnByRead, type WithdrawnByRead } from '../staging/withdrawals.js';
import { addNotes } from '../events/source-notes.js';
import { recordGroupObservations } from '../staging/group-observations-store.js';
import { readNotes, recordReadNotes } from '../staging/read-notes.js';
import { InFlight } from '../util/in-flight.js';
import { settleGoneRows } from './changed-file.js';
import { loadTransform } from './transform-module.js';
import type { FilePlan } from './file-plan.js';
import { inlinePool, piecesInFlight, workerPool, type PiecePool, type WorkerSetup } from './piece-pool.js';
import { PieceSplitter, type SplitterResume, type TextPiece } from './piece-splitter.js';
import { emptyResult, SHOWN_REJECTS, type PieceResult, type PieceTarget } from './stage-piece.js';
import { ArrivingText, skipStagedText, TextProgress } from './text-progress.js';

export interface StageFileOptions {
  store: StagingStore;
  writer: EventWriter;
  input: SourceInput;
  format: string;
  source: SourceFormat;
  readerOptions: Omit<ReaderOptions, 'displayName'>;
  command: string;
  rules: RulesSpec;
  /** Recorded with the read: the options that shape staged content (see content-options.ts). */
  recordedOptions: Record<string, unknown>;
  /**
   * Timestamp (UTC ms) for rows without one (person and group updates). The first read of a
   * file records it and later reads reuse it, so derived uuids stay the same across runs.
   */
  defaultTimestampMs?: number;
  /** Worker threads; 0 stages in-process. Default: one fewer than the cores (at least one) for files of 8 MiB or more and streams, else 0. */
  workers?: number;
  /** --replace-changed: rows of earlier reads of this file that changed or are gone are withdrawn, delivered or not. */
  replaceChanged?: boolean;
  /** Opens the file again from its start; absent when it cannot be (an archive entry). */
  reopen?: () => Promise<SourceInput>;
  signal?: AbortSignal;
  /** Called after each piece with the counts so far. */
  onProgress?: (counts: ReadCounts) => void;
  /** A line worth showing while staging (a read resumed, a file changed). */
  onNotice?: (text: string) => void;
}

export interface FileSummary extends PieceResult {
  path: string;
  displayName: string;
  fingerprint: string | undefined;
  /** The line this run resumed the file's interrupted read at, if it did. */
  resumedAtLine?: number;
  /** Rows the interrupted run had read, when resumed (counted in rowsRead too). */
  rowsReadBeforeResume?: number;
  /** Why the file's interrupted read was not resumed, when it was staged from its start instead. */
  restarted?: string;
  /** Rows of earlier reads of the file this read withdrew, by reason. */
  withdrawn: WithdrawnByRead[];
}

const WORKERS_FROM_BYTES = 8 * 1024 * 1024;

function addPiece(summary: FileSummary, piece: PieceResult): void {
  for (const key of COUNT_KEYS) summary[key] += piece[key];
  addByReason(summary.rejectedByReason, piece.rejectedByReason);
  addByReason(summary.skippedByReason, piece.skippedByReason);
  summary.firstRejects = [...summary.firstRejects, ...piece.firstRejects].sort((a, b) => a.line - b.line).slice(0, SHOWN_REJECTS);
  addNotes(summary.notes, piece.notes);
}

/** Feeds pieces to the pool with at most `limit` in flight; the first failure wins. */
class Dispatcher {
  private readonly inFlight = new InFlight();
  private failure: Error | undefined;

  constructor(private readonly pool: () => PiecePool, private readonly limit: number, private readonly onResult: () => void) {}

  async add(piece: TextPiece, progress: PieceProgress): Promise<void> {
    if (this.failure) throw this.failure;
    this.inFlight.add(this.pool().stage(piece, progress).then(this.onResult, (error: Error) => void (this.failure ??= error)));
    await this.inFlight.below(this.limit);
    if (this.failure) throw this.failure;
  }

  async drain(): Promise<void> {
    await this.inFlight.drain();
    if (this.failure) throw this.failure;
  }
}

/** Where a read starts in the file's text: from the top, or after the pieces an interrupted run wrote. */
interface ReadStart {
  text: AsyncIterable<string>;
  tracker: TextProgress;
  /** False when the read cannot be resumed (a stream, a JSON array): no point is hashed. */
  resumable: boolean;
  /** Resuming: where the text starts, and the CSV header (not in the text). */
  resume?: SplitterResume;
}

/** The last line of a JSON array's piece, for messages (its pieces record no point to resume at). */
function lineAfter(piece: TextPiece): number {
  const lines = piece.elementLines;
  if (lines === undefined || lines.length === 0) return piece.firstLine;
  return lines.at(-1)! + countLineEnds(piece.texts.at(-1)!);
}

/** The point the read reaches once `piece` is written; hashed up to there when it can be resumed. */
function pieceProgress(piece: TextPiece, arriving: ArrivingText | undefined): PieceProgress {
  if (piece.end === undefined || arriving === undefined) return { chars: null, line: piece.end?.line ?? lineAfter(piece), fingerprint: null };
  arriving.hashTo(piece.end.chars);
  return { chars: piece.end.chars, line: piece.end.line, fingerprint: arriving.tracker.fingerprint() };
}

async function stagePieces(options: StageFileOptions, scope: ReadScope, setup: WorkerSetup, summary: FileSummary, start: ReadStart): Promise<void> {
  const { input, store } = options;
  // This thread writes and reads pieces too, so one worker fewer than cores keeps them all busy.
  const workers = options.workers ?? (input.sizeBytes >= WORKERS_FROM_BYTES || input.sizeBytes < 0 ? Math.max(1, availableParallelism() - 1) : 0);
  const splitter = new PieceSplitter(options.source.layout, { ...options.readerOptions, name: input.displayName, resume: start.resume });
  const arriving = new ArrivingText(start.tracker);
  let reached: PieceProgress | undefined;
  const target: PieceTarget = {
    scope,
    writer: options.writer,
    observed: (groups) => recordGroupObservations(store, groups),
    written(result: PieceResult, progress: PieceProgress) {
      recordReadNotes(store, scope.readId, result.notes);
      addPiece(summary, result);
      recordProgress(store, scope.readId, progress, summary, splitter.header);
      reached = progress;
    },
  };
  const transform = await loadTransform(setup.rules.transform);
  let pool: PiecePool | undefined;
  const getPool = (): PiecePool => {
    setup.prefix = splitter.header ?? '';
    pool ??= workers > 0 ? workerPool(setup, options.source.reader, target, workers, transform) : inlinePool(setup, options.source.reader, target, transform);
    return pool;
  };
  const dispatcher = new Dispatcher(getPool, workers > 0 ? piecesInFlight(workers) : 1, () => options.onProgress?.(summary));
  const dispatch = async (piece: TextPiece): Promise<void> => {
    await dispatcher.add(piece, pieceProgress(piece, start.resumable ? arriving : undefined));
  };
  try {
    for await (const text of start.text) {
      if (start.resumable) arriving.add(text);
      for (const piece of splitter.push(text)) await dispatch(piece);
      // Text the splitter is done with (a long record skipped) is hashed now, not held.
      if (start.resumable) arriving.hashTo(splitter.consumed);
      if (options.signal?.aborted) {
        await dispatcher.drain();
        const line = reached?.line ?? start.resume?.line ?? 1;
        if (!start.resumable) throw notResumed(input);
        throw new InterruptedError(`interrupted while staging ${input.displayName}: staged up to line ${line}`, [
          'Run the same command again: it resumes from there, and files already staged are recognised.',
        ]);
      }
    }
    for (const piece of splitter.end()) await dispatch(piece);
    if (options.source.layout === 'csv' && splitter.header === undefined) throw new InputError(`${input.displayName}: the file is empty (no header row)`);
    await dispatcher.drain();
  } finally {
    await pool?.close();
  }
}

/** The stop of a read that cannot be resumed: what it staged is undone. */
function notResumed(input: SourceInput): InterruptedError {
  const why = input.sizeBytes < 0 ? 'a stream cannot be read again' : "a JSON array's read cannot be resumed";
  return new InterruptedError(`interrupted while staging ${input.displayName}; nothing from it was staged (${why})`, [
    `Run the same command again${input.sizeBytes < 0 ? ' with the same data' : ''}: it is staged from the start, and files already staged are recognised.`,
  ]);
}

/** The summary a read starts from: zero, or what its interrupted run already staged. */
function startSummary(options: StageFileOptions, plan: FilePlan, input: SourceInput): FileSummary {
  const summary: FileSummary = { ...emptyResult(), path: input.path, displayName: input.displayName, fingerprint: undefined, withdrawn: [] };
  const resumed = plan.resume;
  if (resumed?.progress == null) return summary;
  Object.assign(summary, resumed.counts);
  summary.skippedByReason = { ...resumed.skippedBy };
  const rejects = readRejects(options.store, resumed.id, SHOWN_REJECTS);
  summary.rejectedByReason = rejects.byReason;
  summary.firstRejects = rejects.first as FileSummary['firstRejects'];
  summary.notes = readNotes(options.store, resumed.id);
  summary.resumedAtLine = resumed.progress.line;
  summary.rowsReadBeforeResume = resumed.counts.rowsRead;
  return summary;
}

/** Resumes the interrupted read when the file is the same up to its last piece; else a new read. */
async function openRead(options: StageFileOptions, plan: FilePlan): Promise<{ readId: number; input: SourceInput; start: ReadStart; plan: FilePlan; restarted?: string }> {
  const { store } = options;
  let input = options.input;
  const resumed = plan.resume;
  let restarted: string | undefined;
  if (plan.undo !== undefined) {
    // Rows of it stay staged when an earlier read staged them too.
    abandonRead(store, plan.undo.read.id, `undone: interrupted, and ${plan.undo.why}`);
    restarted = `its interrupted read (started ${plan.undo.read.startedAt}) was undone: ${plan.undo.why}`;
    options.onNotice?.(`note: ${input.displayName}: ${restarted}; staging it from the start`);
  }
  if (resumed?.progress != null) {
    const tracker = new TextProgress();
    const rest = await skipStagedText(input.text, resumed.progress, tracker);
    if (rest !== undefined) {
      const resume = { chars: resumed.progress.chars, line: resumed.progress.line, header: resumed.header, afterCr: tracker.endsInCr };
      return { readId: resumed.id, input, start: { text: rest, tracker, resumable: true, resume }, plan };
    }
    options.onNotice?.(`note: ${input.displayName} changed since its interrupted read (started ${resumed.startedAt}); staging it again from the start`);
    restarted = `it changed since its interrupted read (started ${resumed.startedAt})`;
    if (options.reopen === undefined) {
      const readId = beginRead(store, { path: input.path, format: options.format, command: options.command, sizeBytes: input.sizeBytes, options: options.recordedOptions });
      supersedeRead(store, resumed.id, readId);
      abandonRead(store, readId, 'the file changed since its interrupted read');
      throw new InputError(`${input.displayName}: changed since its interrupted read, and cannot be read again in this run`, ['Run the same command again: it stages the file from the start.']);
    }
    input = await options.reopen();
  }
  const readId = beginRead(store, { path: input.path, format: options.format, command: options.command, sizeBytes: input.sizeBytes, options: options.recordedOptions, resumable: plan.resumable });
  if (plan.undo === undefined && plan.previous?.status === 'reading' && plan.previous.supersededBy === null) supersedeRead(store, plan.previous.id, readId);
  return { readId, input, start: { text: input.text, tracker: new TextProgress(), resumable: plan.resumable }, plan: { ...plan, resume: undefined }, restarted };
}

export async function stageFile(options: StageFileOptions, plan: FilePlan): Promise<FileSummary> {
  const { store } = options;
  const defaultTimestampMs = (plan.latest?.options.defaultTimestampMs as number | undefined) ?? options.defaultTimestampMs;
  if (defaultTimestampMs !== undefined) options = { ...options, recordedOptions: { ...options.recordedOptions, defaultTimestampMs } };
  const read = await openRead(options, plan);
  const { readId, input } = read;
  // A stream's earlier reads under its name are other data (see file-plan.ts).
  const earlier = plan.stream ? { ids: [], liveRows: 0 } : earlierReads(store, input.path, readId);
  const scope: ReadScope = {
    readId,
    earlierReads: earlier.ids.length > 0 ? new Set(earlier.ids) : undefined,
    replace: options.replaceChanged === true,
    timezone: (options.recordedOptions.timezone as string | null | undefined) ?? null,
  };
  const summary = startSummary(options, read.plan, input);
  if (read.restarted !== undefined) summary.restarted = read.restarted;
  const setup: WorkerSetup = {
    format: options.format,
    readerOptions: { ...options.readerOptions, displayName: input.displayName, defaultTimestampMs },
    rules: options.rules,
    prefix: '',
  };
  try {
    await stagePieces({ ...options, input }, scope, setup, summary, read.start);
  } catch (error) {
    // Interrupted: the read stays partial, to be resumed. Anything else, or a read that cannot be resumed: undone as a whole.
    const resumable = error instanceof InterruptedError && read.start.resumable;
    if (!resumable) abandonRead(store, readId, (error as Error).message);
    throw error instanceof InterruptedError && !resumable ? notResumed(input) : error;
  }
  summary.fingerprint = input.fingerprint();
  const refused = store.transaction(() => {
    const refusal = settleGoneRows(store, readId, earlier, options.replaceChanged === true, input.displayName);
    if (refusal === undefined) finishRead(store, readId, summary, summary.fingerprint);
    return refusal;
  });
  if (refused !== undefined) {
    abandonRead(store, readId, 'refused: rows gone from the changed file were already delivered');
    throw refused;
  }
  summary.withdrawn = withdrawnByRead(store, readId);
  return summary;
}
