/**
 * The opened files of a run staged in one pool: each file is read while the one before is
 * still being written; summaries come in file order, with their progress reported.
 */
import type { Reporter } from '../reporter.js';
import type { Clock } from '../util/clock.js';
import { count, rate } from '../util/format.js';
import { afterReading } from './file-reading.js';
import type { FileSettings } from './file-settings.js';
import type { FilePlan } from './file-plan.js';
import { PiecePool } from './piece-pool.js';
import { defaultWorkers, startFile, textBytes } from './stage-file.js';
import type { StageFileOptions } from './stage-file-options.js';
import type { StagedFile, StageSourcesInput } from './stage-sources-types.js';

/**
 * Starts staging one opened file in the run's pool, reporting its progress: resolves once the
 * file is read, with the promise of its summary (see startFile).
 */
async function stageOne(
  input: StageSourcesInput,
  target: Pick<StageFileOptions, 'store' | 'writer'> & { settings: FileSettings; pool: PiecePool },
  plan: FilePlan,
  reporter: Reporter,
  signal: AbortSignal,
  clock: Clock,
): Promise<{ done: Promise<StagedFile> }> {
  const started = clock.now();
  const { settings, pool, ...staging } = target;
  const { input: file, reading } = settings;
  const name = file.displayName;
  const { done } = await startFile(
    {
      ...staging,
      input: file,
      source: reading.source,
      reopen: file.reopen,
      replaceChanged: input.replaceChanged,
      identity: file.identity,
      onNotice: (text) => reporter.notice(text),
      format: input.format,
      readerOptions: reading.readerOptions,
      command: input.command,
      rules: settings.rules,
      recordedOptions: settings.recorded,
      defaultTimestampMs: input.defaultTimestampMs,
      workers: input.workers,
      bytePieces: input.bytePieces,
      pieceChars: input.pieceChars,
      signal,
      onProgress: (counts) => reporter.progress(`${name}: ${count(counts.rowsRead)} rows, ${count(counts.staged)} new (${count(rate(counts.rowsRead, clock.now() - started))} rows/s)`),
    },
    plan,
    pool,
  );
  const staged = done.then((summary) => ({ ...summary, notices: [...reading.notices, ...afterReading(file, summary)] }));
  staged.catch(() => {});
  return { done: staged };
}

/**
 * Stages every file in one pool: each file is read while the one before is still being
 * written. Summaries come in file order; the first failure is the run's, once every file
 * started has settled.
 */
export async function stageAll(
  input: StageSourcesInput,
  target: Pick<StageFileOptions, 'store' | 'writer'>,
  settled: FileSettings[],
  plans: FilePlan[],
  reporter: Reporter,
  signal: AbortSignal,
  clock: Clock,
): Promise<StagedFile[]> {
  const bytes = settled.reduce((sum, s) => (sum < 0 || s.input.sizeBytes < 0 ? -1 : sum + textBytes(s.input)), 0);
  const pool = new PiecePool(input.workers ?? defaultWorkers(bytes), target.writer, signal);
  const pending: Array<Promise<StagedFile>> = [];
  try {
    for (const index of settled.keys()) pending.push((await stageOne(input, { ...target, settings: settled[index]!, pool }, plans[index]!, reporter, signal, clock)).done);
  } catch (error) {
    await Promise.allSettled(pending);
    throw await firstFailure(pending, error);
  } finally {
    await pool.close();
  }
  return Promise.all(pending);
}

/** The error of the earliest file that failed, or `error`. */
async function firstFailure(pending: ReadonlyArray<Promise<unknown>>, error: unknown): Promise<unknown> {
  for (const done of pending) {
    const failure = await done.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (failure !== undefined) return failure;
  }
  return error;
}
