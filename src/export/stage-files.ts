/**
 * Stages several files under one staging lock. Every file is checked before the first row is
 * staged, so a typo in the last name does not leave the run half done.
 */
import type { Progress } from '../cli/progress.js';
import { count, rate } from '../cli/format.js';
import type { RulesSpec } from '../events/rules-spec.js';
import { openSourceInput, type SourceInput } from '../sources/open-input.js';
import type { ReaderOptions, SourceFormat } from '../sources/source-item.js';
import { EventWriter } from '../staging/event-writer.js';
import { recoverInterruptedReads, type InterruptedRead, type ReadCounts } from '../staging/source-reads.js';
import { StagingStore } from '../staging/staging-store.js';
import { stageFile, type FileSummary } from './stage-file.js';

export interface StageFilesOptions {
  files: string[];
  staging: string;
  command: string;
  format: string;
  source: SourceFormat;
  readerOptions: Omit<ReaderOptions, 'displayName'>;
  rules: RulesSpec;
  recordedOptions: Record<string, unknown>;
  /** Worker threads per file; see StageFileOptions.workers. */
  workers?: number;
  progress: Progress;
  signal?: AbortSignal;
  /** Expands a command-line argument into files (directories, globs). Default: itself. */
  expand?: (file: string) => Promise<string[]>;
  now?: () => number;
}

export interface StageFilesResult {
  staging: string;
  files: FileSummary[];
  totals: ReadCounts & { rejectedByReason: Record<string, number> };
  /** Earlier reads found interrupted and undone before this run. */
  recovered: InterruptedRead[];
  elapsedMs: number;
}

function addTotals(totals: StageFilesResult['totals'], file: FileSummary): void {
  for (const key of ['rowsRead', 'staged', 'alreadyStaged', 'duplicates', 'skipped', 'rejected', 'recent'] as const) totals[key] += file[key];
  for (const [reason, n] of Object.entries(file.rejectedByReason)) totals.rejectedByReason[reason] = (totals.rejectedByReason[reason] ?? 0) + n;
}

export async function stageFiles(options: StageFilesOptions): Promise<StageFilesResult> {
  const now = options.now ?? Date.now;
  const started = now();
  const names = options.expand ? (await Promise.all(options.files.map(options.expand))).flat() : options.files;
  const inputs: SourceInput[] = [];
  for (const name of names) inputs.push(await openSourceInput(name));

  const store = StagingStore.open(options.staging, { lockFor: options.command });
  try {
    const recovered = recoverInterruptedReads(store);
    for (const read of recovered) {
      options.progress.log(`note: an earlier ${read.command} of ${read.path} (started ${read.startedAt}) was interrupted; its partial rows were removed`);
    }
    const writer = new EventWriter(store);
    const result: StageFilesResult = {
      staging: store.path,
      files: [],
      totals: { rowsRead: 0, staged: 0, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0, rejectedByReason: {} },
      recovered,
      elapsedMs: 0,
    };
    for (const input of inputs) {
      const fileStarted = now();
      const summary = await stageFile({
        ...options,
        store,
        writer,
        input,
        onProgress: (counts) =>
          options.progress.update(`${input.displayName}: ${count(counts.rowsRead)} rows, ${count(counts.staged)} staged (${count(rate(counts.rowsRead, now() - fileStarted))} rows/s)`),
      });
      result.files.push(summary);
      addTotals(result.totals, summary);
    }
    result.elapsedMs = now() - started;
    return result;
  } finally {
    store.close();
  }
}
