/**
 * The staging use case of export-source, identify-users and identify-groups: stages source
 * files into the staging file under one staging lock and returns what happened to each. Every
 * file is checked before the first row is staged, so a typo in the last name does not leave
 * the run half done.
 */
import { resolve } from 'node:path';
import { InputError, UsageError } from '../errors.js';
import type { RulesSpec } from '../events/rules-spec.js';
import type { Reporter } from '../reporter.js';
import { expandInput } from '../sources/expand-inputs.js';
import { findFormat } from '../sources/formats.js';
import { openSourceInput, type OpenOptions, type SourceInput } from '../sources/open-input.js';
import type { ReaderOptions, SourceFormat } from '../sources/source-item.js';
import { openInputs } from '../sources/zip-input.js';
import { EventWriter } from '../staging/event-writer.js';
import { recoverInterruptedReads, type InterruptedRead, type ReadCounts } from '../staging/source-reads.js';
import { StagingStore } from '../staging/staging-store.js';
import { systemClock, type Clock } from '../util/clock.js';
import { count, rate } from '../util/format.js';
import { afterReading, fileReading, refuseChangedReading, type FileReading } from './file-reading.js';
import { stageFile, type FileSummary, type StageFileOptions } from './stage-file.js';

export interface StageSourcesInput {
  /** Files as given on the command line. */
  files: string[];
  staging: string;
  /** The command staging them, recorded with each read. */
  command: string;
  /** A registered source format (see sources/formats.ts). */
  format: string;
  readerOptions: Omit<ReaderOptions, 'displayName'>;
  rules: RulesSpec;
  /** Recorded with each read: the options that shape staged content. */
  recordedOptions: Record<string, unknown>;
  /** Worker threads per file; see StageFileOptions.workers. */
  workers?: number;
  /** Timestamp for rows without one; see StageFileOptions.defaultTimestampMs. */
  defaultTimestampMs?: number;
  /** Read directories, globs and zip archives as export-source does; otherwise each name is one file. */
  expandInputs: boolean;
}

/** A file's summary, with what was noticed reading it (a delimiter found, a likely wrong encoding). */
export interface StagedFile extends FileSummary {
  notices: string[];
}

export interface StageSourcesResult {
  staging: string;
  files: StagedFile[];
  totals: ReadCounts & { rejectedByReason: Record<string, number> };
  /** Earlier reads found interrupted and undone before this run. */
  recovered: InterruptedRead[];
  elapsedMs: number;
}

function addTotals(totals: StageSourcesResult['totals'], file: FileSummary): void {
  for (const key of ['rowsRead', 'staged', 'alreadyStaged', 'duplicates', 'skipped', 'rejected', 'recent'] as const) totals[key] += file[key];
  for (const [reason, n] of Object.entries(file.rejectedByReason)) totals.rejectedByReason[reason] = (totals.rejectedByReason[reason] ?? 0) + n;
}

async function closeAll(inputs: readonly SourceInput[]): Promise<void> {
  await Promise.all(inputs.map((input) => input.close?.()));
}

/** Opens every file (a file named twice is read once); on a failure closes those opened. */
async function openAll(names: readonly string[], open: (name: string) => Promise<SourceInput[]>): Promise<SourceInput[]> {
  const inputs: SourceInput[] = [];
  const seen = new Set<string>();
  try {
    for (const name of names) {
      if (seen.has(resolve(name))) continue;
      seen.add(resolve(name));
      inputs.push(...(await open(name)));
    }
    return inputs;
  } catch (error) {
    await closeAll(inputs);
    throw error;
  }
}

/**
 * The files named, expanded and opened as the input asks. A zip archive found in a directory
 * or by a glob that holds nothing the format reads is skipped with a notice, as other files
 * there are; one named on the command line is an error.
 */
async function openFiles(input: StageSourcesInput, source: SourceFormat, reporter: Reporter, signal: AbortSignal): Promise<SourceInput[]> {
  const options: OpenOptions = { encoding: input.readerOptions.encoding, signal, notice: (text) => reporter.notice(text) };
  if (!input.expandInputs) return openAll(input.files, async (name) => [await openSourceInput(name, options)]);
  const named = new Set<string>();
  const names: string[] = [];
  for (const file of input.files) {
    const found = await expandInput(file, source.extensions);
    if (found.length === 1 && found[0] === file) named.add(file);
    names.push(...found);
  }
  const inputs = await openAll(names, (name) => openInputs(name, source.extensions, { ...options, skipEmptyArchive: named.has(name) ? undefined : (notice) => reporter.notice(notice) }));
  if (inputs.length === 0) throw new InputError(`no source files to read in ${input.files.join(', ')} (the zip archives found hold none)`);
  return inputs;
}

/** Stages one opened file, reporting its progress. */
async function stageOne(
  input: StageSourcesInput,
  target: Pick<StageFileOptions, 'store' | 'writer' | 'input'> & { reading: FileReading },
  reporter: Reporter,
  signal: AbortSignal,
  clock: Clock,
): Promise<StagedFile> {
  const started = clock.now();
  const file = target.input;
  const name = file.displayName;
  const { reading, ...staging } = target;
  const recordedOptions = { ...input.recordedOptions, ...reading.recorded };
  refuseChangedReading(target.store, file, recordedOptions);
  const summary = await stageFile({
    ...staging,
    source: reading.source,
    format: input.format,
    readerOptions: reading.readerOptions,
    command: input.command,
    rules: input.rules,
    recordedOptions,
    defaultTimestampMs: input.defaultTimestampMs,
    workers: input.workers,
    signal,
    onProgress: (counts) => reporter.progress(`${name}: ${count(counts.rowsRead)} rows, ${count(counts.staged)} staged (${count(rate(counts.rowsRead, clock.now() - started))} rows/s)`),
  });
  return { ...summary, notices: [...reading.notices, ...afterReading(file, summary)] };
}

export async function stageSources(input: StageSourcesInput, reporter: Reporter, signal: AbortSignal, clock: Clock = systemClock): Promise<StageSourcesResult> {
  const source = findFormat(input.format);
  if (source === undefined) throw new UsageError(`unknown source format "${input.format}"`);
  const started = clock.now();
  const inputs = await openFiles(input, source, reporter, signal);
  let readings: FileReading[];
  try {
    // How each file is read (and whether its header can be read) is settled before any row is staged.
    readings = inputs.map((file) => fileReading(file, source, input.readerOptions));
  } catch (error) {
    await closeAll(inputs);
    throw error;
  }
  let store: StagingStore | undefined;
  try {
    store = StagingStore.open(input.staging, { lockFor: input.command });
    const recovered = recoverInterruptedReads(store);
    for (const read of recovered) {
      reporter.notice(`note: an earlier ${read.command} of ${read.path} (started ${read.startedAt}) was interrupted; its partial rows were removed`);
    }
    const writer = new EventWriter(store);
    const result: StageSourcesResult = {
      staging: store.path,
      files: [],
      totals: { rowsRead: 0, staged: 0, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0, rejectedByReason: {} },
      recovered,
      elapsedMs: 0,
    };
    for (const [index, file] of inputs.entries()) {
      const summary = await stageOne(input, { store, writer, input: file, reading: readings[index]! }, reporter, signal, clock);
      result.files.push(summary);
      addTotals(result.totals, summary);
    }
    result.elapsedMs = clock.now() - started;
    return result;
  } finally {
    store?.close();
    await closeAll(inputs);
  }
}
