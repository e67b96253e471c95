/**
 * The staging use case of export-source, identify-users and identify-groups: stages source
 * files into the staging file under one staging lock and returns what happened to each. Every
 * file is opened and its options checked against its earlier reads before the first row is
 * staged, so a typo in the last name or a changed option does not leave the run half done.
 */
import { resolve } from 'node:path';
import { InputError, RefusedError, UsageError } from '../errors.js';
import type { BucketChoices } from '../buckets/bucket-settings.js';
import { BucketSources, isBucketUrl } from '../buckets/open-bucket-inputs.js';
import { checkStagingRoom } from './staging-room.js';
import { SKIPPED_BY_MAP } from '../events/row-filters.js';
import type { RulesSpec } from '../events/rules-spec.js';
import type { Reporter } from '../reporter.js';
import { expandInput } from '../sources/expand-inputs.js';
import { findFormat } from '../sources/formats.js';
import { isLinkFormat } from '../events/identity-pair.js';
import { openSourceInput, type BucketObjectRecord, type OpenOptions, type SourceInput } from '../sources/open-input.js';
import type { ReaderOptions, SourceFormat } from '../sources/source-item.js';
import { openInputs } from '../sources/zip-input.js';
import { EventWriter } from '../staging/event-writer.js';
import { ensureImportRunId } from '../staging/import-run-id.js';
import { addByReason, COUNT_KEYS, emptyCounts, latestRead, partialReads, type PartialRead, type ReadCounts } from '../staging/source-reads.js';
import { StagingStore } from '../staging/staging-store.js';
import { systemClock, type Clock } from '../util/clock.js';
import { count, rate } from '../util/format.js';
import { migrateCommand } from '../util/migrate-command.js';
import { afterReading } from './file-reading.js';
import { fileSettings, type FileSettings } from './file-settings.js';
import { addNotes, type NoteCounts } from '../events/source-notes.js';
import { endpointClashes, recordBucketObjects } from '../staging/bucket-objects.js';
import { lastReadId, markPassesPending } from '../staging/pass-state.js';
import { planFiles, type FilePlan } from './file-plan.js';
import { checkPassOptions, runPasses, type PassesResult, type PassOptions } from '../passes/run-passes.js';
import { PiecePool } from './piece-pool.js';
import { defaultWorkers, startFile, textBytes } from './stage-file.js';
import { heapInputs, withdrawReplacedDumps } from './heap-folder.js';
import type { FileSummary, StageFileOptions } from './stage-file-options.js';
import { splitPersonsInputs, stageExportPersons, type ExportPersons } from './export-persons.js';

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
  /**
   * PostHog's ingestion rules for these rows (the run's `$import_run` is the staging file's,
   * added here); absent, the rows are staged as mapped (tests of the staging machinery).
   */
  ingestion?: { geoipFromIp: boolean; importSource: string };
  /** Recorded with each read: the options that shape staged content. */
  recordedOptions: Record<string, unknown>;
  /** Worker threads for all the files, in one pool; 0 stages in-process. Default: one fewer than the cores (at least one) when the files come to 8 MiB or more or one is a stream, else 0. */
  workers?: number;
  /** UTF-8 JSON lines cut from their bytes; see StageFileOptions.bytePieces (tests compare both ways). */
  bytePieces?: boolean;
  /** Piece size to aim for; see StageFileOptions.pieceChars. */
  pieceChars?: number;
  /** Timestamp for rows without one; see StageFileOptions.defaultTimestampMs. */
  defaultTimestampMs?: number;
  /** Read directories, globs and zip archives as export-source does; otherwise each name is one file. */
  expandInputs: boolean;
  /**
   * --replace-changed: a file read again with other content-shaping options, or whose rows a
   * project already received, is staged anyway; the rows of its earlier reads that changed or
   * are gone are withdrawn (the projects keep what they received).
   */
  replaceChanged?: boolean;
  /** Options of the passes after staging (identity links, sessions); see run-passes.ts. */
  passes?: PassOptions;
  /**
   * Keys of the content options the user left at their defaults: for a file read before, those
   * with `inherits` take the earlier read's value (see content-options.ts). Absent: none.
   */
  defaulted?: readonly string[];
  /**
   * How `s3://` and `gs://` addresses are reached: the user's choices (endpoint, profile, keys'
   * variables) and the environment the AWS conventions read. Absent: no flags, no environment.
   */
  buckets?: { choices: BucketChoices; env: Readonly<Record<string, string | undefined>> };
}

/** A file's summary, with what was noticed reading it (a delimiter found, a likely wrong encoding). */
export interface StagedFile extends FileSummary {
  notices: string[];
}

export interface StageSourcesResult {
  staging: string;
  files: StagedFile[];
  /** rowsRead + added = staged (new) + alreadyStaged + duplicates (identical) + skipped + rejected; withdrawn are rows of earlier reads. */
  totals: ReadCounts & { withdrawn: number; rejectedByReason: Record<string, number>; skippedByReason: Record<string, number>; notes: NoteCounts };
  /** What the passes after staging did and found (identity links, group updates, sessions). */
  passes?: PassesResult;
  /** PostHog batch exports: what the files of the persons model gave (their persons are staged as one read, in `files`). */
  persons?: ExportPersons;
  /**
   * Files a PostHog batch export's run manifest lists that are not there (in a folder or under a
   * prefix), in words: the others were staged, and the run fails once it has said so.
   */
  incomplete?: string[];
  /** Interrupted reads of files not staged by this run: resumed when those files are staged again. */
  partial: PartialRead[];
  elapsedMs: number;
}

function addTotals(totals: StageSourcesResult['totals'], file: FileSummary): void {
  for (const key of COUNT_KEYS) totals[key] += file[key];
  for (const w of file.withdrawn) totals.withdrawn += w.count;
  addByReason(totals.rejectedByReason, file.rejectedByReason);
  addByReason(totals.skippedByReason, file.skippedByReason);
  addNotes(totals.notes, file.notes);
}

/** The persons of a batch export's persons files: their read among the files, and what the files gave. */
function addPersons(result: StageSourcesResult, done: Awaited<ReturnType<typeof stageExportPersons>>): void {
  for (const summary of done.files) {
    result.files.push({ ...summary, notices: [] });
    addTotals(result.totals, summary);
  }
  result.persons = done.persons;
}

/**
 * Every row read left out by the run's own filters or transform: more likely a misspelt name or
 * a wrong year than what was meant. (Rows mapped to null are the mapping's business.)
 */
function everyRowLeftOut(result: StageSourcesResult): InputError | undefined {
  const t = result.totals;
  const chosen = Object.entries(t.skippedByReason).filter(([reason]) => reason !== SKIPPED_BY_MAP);
  if (t.rowsRead === 0 || t.skipped !== t.rowsRead + t.added || chosen.length === 0) return undefined;
  const reasons = chosen
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${count(n)} ${reason}`)
    .join(', ');
  return new InputError(`nothing was staged: every row read was skipped (${reasons})`, [
    "--only-events and --skip-events match an event's name as the source wrote it or as the mapping renamed it; --since and --until its time in UTC.",
  ]);
}

/**
 * The failure of a run that achieved nothing: rows were rejected and none is staged (new, already
 * staged or identical), or every row was left out by a filter or the transform. Rejected or
 * skipped rows next to staged ones are not a failure.
 */
export function nothingStagedError(result: StageSourcesResult): InputError | undefined {
  const t = result.totals;
  if (t.staged + t.alreadyStaged + t.duplicates > 0) return undefined;
  if (t.rejected === 0) return everyRowLeftOut(result);
  const top = Object.entries(t.rejectedByReason)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([reason, n]) => `${count(n)} ${reason}`)
    .join(', ');
  return new InputError(`nothing was staged: ${t.rejected === t.rowsRead ? 'every row read was rejected' : 'no row was staged and some were rejected'} (${top})`, [
    `Every rejected row, with its file, line and reason: \`${migrateCommand('rejects', { staging: result.staging })}\`.`,
  ]);
}

/** The failure of a run whose batch-export manifests list files that are not there: what was there is staged. */
export function incompleteRunError(result: StageSourcesResult): InputError | undefined {
  const missing = result.incomplete ?? [];
  if (missing.length === 0) return undefined;
  const more = missing.length > 1 ? ` (and ${count(missing.length - 1)} more)` : '';
  return new InputError(`a batch export run is incomplete: ${missing[0]}${more}; the files that are there were staged`, [
    'The export may still be writing, or the download missed a file: fetch it and run the same command again (what is staged is recognised).',
  ]);
}

/** The bucket objects among the inputs, once each (a zip object's entries share theirs). */
function uniqueObjects(inputs: readonly SourceInput[]): BucketObjectRecord[] {
  const byUrl = new Map<string, BucketObjectRecord>();
  for (const input of inputs) if (input.bucketObject !== undefined) byUrl.set(input.bucketObject.url, input.bucketObject);
  return [...byUrl.values()];
}

/** The same key read before from another endpoint, with other content: another store's object, never taken for a new version of the one staged. */
function refuseEndpointClashes(store: StagingStore, objects: readonly BucketObjectRecord[]): void {
  const clashes = endpointClashes(store, objects);
  if (clashes.length === 0) return;
  const [first] = clashes;
  const more = clashes.length > 1 ? ` (and ${count(clashes.length - 1)} more)` : '';
  throw new RefusedError(
    `${first!.url}: staged before from ${first!.recordedEndpoint}; the object under that key at ${first!.endpoint} is another one (its size or ETag differ)${more}; nothing was staged`,
    [
      'Objects of two stores are two sources: stage the other store into another staging file.',
      'If it is the same data moved to the new endpoint, pass --replace-changed to read it as a new version of the staged object (rows it no longer holds are withdrawn).',
    ],
  );
}

async function closeAll(inputs: readonly SourceInput[]): Promise<void> {
  await Promise.all(inputs.map((input) => input.close?.()));
}

/** Opens every file (a file named twice is read once); on a failure closes those opened. */
async function openAll(names: readonly string[], open: (name: string) => Promise<SourceInput[]>, seen = new Set<string>()): Promise<SourceInput[]> {
  const inputs: SourceInput[] = [];
  try {
    for (const name of names) {
      const key = isBucketUrl(name) ? name : resolve(name);
      if (seen.has(key)) continue;
      seen.add(key);
      inputs.push(...(await open(name)));
    }
    return inputs;
  } catch (error) {
    await closeAll(inputs);
    throw error;
  }
}

/** The run's inputs, and the files run manifests list that are missing, in words. */
interface OpenedFiles {
  inputs: SourceInput[];
  /** Files run manifests list that are missing, in words. */
  missing: string[];
}

/** The bucket clients of a run, with the user's choices; closed once the run ends. */
function bucketSources(input: StageSourcesInput, reporter: Reporter, signal: AbortSignal, clock: Clock): BucketSources {
  return new BucketSources({ choices: input.buckets?.choices ?? {}, env: input.buckets?.env ?? {}, clock, signal, notice: (text) => reporter.notice(text) });
}

/** Each name one input: objects a vendor's folder listed (a Heap prefix) opened a few at once, files one by one, in the order named. */
async function openNamed(names: readonly string[], source: SourceFormat, options: OpenOptions, buckets: BucketSources): Promise<SourceInput[]> {
  const listed = names.filter((name) => buckets.isListed(name));
  const objects = new Map((await buckets.openListed(listed, source.extensions, options)).map((object) => [object.path, object]));
  try {
    return await openAll(names, async (name) => [objects.get(name) ?? (await openSourceInput(name, options))]);
  } catch (error) {
    await closeAll([...objects.values()]);
    throw error;
  }
}

/**
 * The files named, expanded and opened as the input asks, bucket addresses among them (each
 * object an input, in key order). A zip archive found in a directory or by a glob that holds
 * nothing the format reads is skipped with a notice, as other files there are; one named on
 * the command line is an error.
 */
async function openFiles(input: StageSourcesInput, source: SourceFormat, reporter: Reporter, signal: AbortSignal, buckets: BucketSources): Promise<OpenedFiles> {
  const options: OpenOptions = { encoding: input.readerOptions.encoding, signal, notice: (text) => reporter.notice(text) };
  if (!input.expandInputs) return { inputs: await openNamed(input.files, source, options, buckets), missing: [] };
  const inputs: SourceInput[] = [];
  const missing: string[] = [];
  const report = { notice: (text: string) => reporter.notice(text), missing: (text: string) => missing.push(text) };
  const seen = new Set<string>();
  try {
    for (const file of input.files) {
      if (isBucketUrl(file)) {
        for (const object of await buckets.open(file, source.extensions, options)) {
          if (!seen.has(object.path)) inputs.push(object);
          seen.add(object.path);
        }
        continue;
      }
      const found = await expandInput(file, source.extensions, report);
      const named = found.length === 1 && found[0] === file;
      inputs.push(...(await openAll(found, (name) => openInputs(name, source.extensions, { ...options, skipEmptyArchive: named ? undefined : (notice) => reporter.notice(notice) }), seen)));
    }
  } catch (error) {
    await closeAll(inputs);
    throw error;
  }
  missing.push(...buckets.missing);
  for (const text of missing) reporter.warn(`warning: ${text}; staging the run's other files`);
  if (inputs.length === 0) throw new InputError(`no source files to read in ${input.files.join(', ')} (the zip archives found hold none)`);
  return { inputs, missing };
}

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
async function stageAll(
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

export async function stageSources(input: StageSourcesInput, reporter: Reporter, signal: AbortSignal, clock: Clock = systemClock): Promise<StageSourcesResult> {
  const source = findFormat(input.format);
  if (source === undefined) throw new UsageError(`unknown source format "${input.format}"`);
  const started = clock.now();
  const buckets = bucketSources(input, reporter, signal, clock);
  let inputs: SourceInput[] = [];
  let personsInputs: SourceInput[] = [];
  let missing: string[] = [];
  let store: StagingStore | undefined;
  try {
    // A Heap Connect folder is read as its manifests say: the files of complete dumps, in dump order.
    const heap = input.format === 'heap' ? await heapInputs(input.files, reporter, buckets) : undefined;
    if (heap !== undefined) input = { ...input, files: heap.files, expandInputs: false };
    ({ inputs, missing } = await openFiles(input, source, reporter, signal, buckets));
    if (source.personsModel === true) ({ events: inputs, persons: personsInputs } = await splitPersonsInputs(inputs));
    store = StagingStore.open(input.staging, { lockFor: input.command });
    if (input.replaceChanged !== true) refuseEndpointClashes(store, uniqueObjects(inputs));
    if (input.ingestion !== undefined) input = { ...input, rules: { ...input.rules, ingestion: { ...input.ingestion, importRun: ensureImportRunId(store) } } };
    if (isLinkFormat(input.format)) input = { ...input, rules: { ...input.rules, identityPairs: input.format } };
    // How each file is read (its header checked, its options against its earlier read) is settled before any row is staged.
    const run = { readerOptions: input.readerOptions, rules: input.rules, recordedOptions: input.recordedOptions, defaulted: input.defaulted ?? [] };
    const settled: FileSettings[] = [];
    for (const file of inputs) settled.push(await fileSettings(file, source, run, latestRead(store, file.path)));
    inputs = settled.map((s) => s.input);
    const plans = planFiles(
      store,
      settled.map(({ input: file, reading, recorded }) => ({
        path: file.path,
        displayName: file.displayName,
        recordedOptions: recorded,
        replaceChanged: input.replaceChanged === true,
        // A stream cannot be read again, and a JSON array's elements record no point in the text.
        resumable: file.sizeBytes >= 0 && reading.source.layout !== 'array',
        stream: file.sizeBytes < 0,
      })),
    );
    const paths = new Set(inputs.map((f) => f.path));
    const partial = partialReads(store).filter((read) => !paths.has(read.path));
    for (const read of partial) {
      const next = read.resumable ? 'staging that file again resumes it' : 'staging it again undoes what it staged and stages it from the start';
      reporter.notice(`note: an earlier ${read.command} of ${read.path} (started ${read.startedAt}) was interrupted at line ${read.line ?? 1}; ${next}`);
    }
    // The room is checked before anything is written: a disk too small refuses the run whole.
    await checkStagingRoom(store, inputs, reporter);
    const objects = uniqueObjects(inputs);
    if (objects.length > 0) recordBucketObjects(store, objects, new Date(clock.now()).toISOString());
    checkPassOptions(store, input.passes ?? {});
    const lastRead = lastReadId(store);
    markPassesPending(store);
    const writer = new EventWriter(store);
    const result: StageSourcesResult = {
      staging: store.path,
      files: [],
      totals: { ...emptyCounts(), withdrawn: 0, rejectedByReason: {}, skippedByReason: {}, notes: {} },
      partial,
      incomplete: missing,
      elapsedMs: 0,
    };
    if (heap !== undefined) result.totals.withdrawn += withdrawReplacedDumps(store, heap, reporter).withdrawn;
    for (const summary of await stageAll(input, { store, writer }, settled, plans, reporter, signal, clock)) {
      result.files.push(summary);
      addTotals(result.totals, summary);
    }
    if (personsInputs.length > 0) {
      const staging = { store, writer, rules: input.rules, recordedOptions: input.recordedOptions, workers: input.workers, signal, reporter, defaultTimestampMs: input.defaultTimestampMs };
      addPersons(result, await stageExportPersons(personsInputs, staging, reporter));
    }
    result.passes = runPasses(store, input.passes ?? {}, lastRead);
    result.elapsedMs = clock.now() - started;
    return result;
  } catch (error) {
    // A write outside the store's own transactions (a piece's progress, a withdrawal) is explained here too.
    throw store === undefined ? error : store.failure(error);
  } finally {
    store?.close();
    await closeAll([...inputs, ...personsInputs]);
    buckets.close();
  }
}
