/**
 * The staging use case of export-source, identify-users and identify-groups: stages source
 * files into the staging file under one staging lock and returns what happened to each. Every
 * file is opened and its options checked against its earlier reads before the first row is
 * staged, so a typo in the last name or a changed option does not leave the run half done. A
 * source staged before and unchanged since is not read again (unless --reread).
 */
import { existsSync } from 'node:fs';
import { InputError, UsageError } from '../errors.js';
import { isLinkFormat } from '../events/identity-pair.js';
import { checkPassOptions, runPasses } from '../passes/run-passes.js';
import type { Reporter } from '../reporter.js';
import { findFormat } from '../sources/formats.js';
import type { SourceInput } from '../sources/open-input.js';
import type { SourceFormat } from '../sources/source-item.js';
import { recordBucketObjects } from '../staging/bucket-objects.js';
import { EventWriter } from '../staging/event-writer.js';
import { ensureImportRunId } from '../staging/import-run-id.js';
import { lastReadId, markPassesPending } from '../staging/pass-state.js';
import { emptyCounts, latestRead, partialReads, type PartialRead } from '../staging/source-reads.js';
import { StagingStore } from '../staging/staging-store.js';
import { unchangedSources } from '../staging/unchanged-reads.js';
import { systemClock, type Clock } from '../util/clock.js';
import { CONTENT_OPTIONS } from './content-options.js';
import { withFormat } from './recorded-options.js';
import { splitPersonsInputs, stageExportPersons } from './export-persons.js';
import { planFiles } from './file-plan.js';
import { fileSettings, type FileSettings } from './file-settings.js';
import { heapInputs, withdrawReplacedDumps } from './heap-folder.js';
import { bucketSources, closeAll, openRunInputs, refuseEndpointClashes, uniqueObjects, type Unchanged } from './open-run-inputs.js';
import { addPersons, addTotals } from './run-result.js';
import { stageAll } from './stage-all.js';
import { checkStagingRoom } from './staging-room.js';
import type { StageSourcesInput, StageSourcesResult } from './stage-sources-types.js';

export type { StagedFile, StageSourcesInput, StageSourcesResult } from './stage-sources-types.js';
export { incompleteRunError, nothingStagedError } from './run-result.js';

/** Sources staged before and unchanged since, asked of a staging file that exists (a new one has none); none with --reread. */
function unchangedTest(input: StageSourcesInput, store: StagingStore | undefined): Unchanged | undefined {
  if (store === undefined || input.reread === true) return undefined;
  const inherited = new Set((input.defaulted ?? []).filter((key) => CONTENT_OPTIONS.some((o) => o.key === key && o.inherits !== undefined)));
  // Reader options given explicitly are recorded per file (file-reading.ts): compared too.
  const { encoding, delimiter, trim } = input.readerOptions;
  const explicit = Object.entries({ encoding, delimiter, trim }).filter(([key, value]) => value !== undefined && !inherited.has(key));
  return unchangedSources(store, { command: input.command, recorded: { ...input.recordedOptions, ...Object.fromEntries(explicit) }, inherited, nowMs: input.rules.nowMs });
}

/** How each file is read (its header checked, its options against its earlier read), settled before any row is staged. */
async function settleFiles(input: StageSourcesInput, source: SourceFormat, store: StagingStore, inputs: readonly SourceInput[], unreadable: string[], reporter: Reporter): Promise<FileSettings[]> {
  const run = { readerOptions: input.readerOptions, rules: input.rules, recordedOptions: input.recordedOptions, defaulted: input.defaulted ?? [] };
  const settled: FileSettings[] = [];
  for (const file of inputs) {
    const settings = await fileSettings(file, source, run, latestRead(store, file.path)).catch((error: unknown) => {
      // A file found in a folder that this format cannot read (its header, its kind) is told; the folder's other files are staged.
      if (file.foundInFolder !== true || !(error instanceof InputError)) throw error;
      unreadable.push(error.message);
      reporter.warn(`warning: ${error.message}; staging the folder's other files`);
      return undefined;
    });
    if (settings === undefined) continue;
    // A file opened again (in its earlier read's encoding) is still the source it was.
    settled.push({ ...settings, input: { ...settings.input, identity: file.identity } });
  }
  return settled;
}

/** Interrupted reads of files this run does not stage, told: staging those files again resumes them. */
function reportPartial(store: StagingStore, inputs: readonly SourceInput[], reporter: Reporter): PartialRead[] {
  const paths = new Set(inputs.map((f) => f.path));
  const partial = partialReads(store).filter((read) => !paths.has(read.path));
  for (const read of partial) {
    const next = read.resumable ? 'staging that file again resumes it' : 'staging it again undoes what it staged and stages it from the start';
    reporter.notice(`note: an earlier ${read.command} of ${read.path} (started ${read.startedAt}) was interrupted at line ${read.line ?? 1}; ${next}`);
  }
  return partial;
}

function emptyResult(store: StagingStore, opened: { missing: string[]; unchanged: string[]; unreadable: string[] }, partial: PartialRead[]): StageSourcesResult {
  return {
    staging: store.path,
    files: [],
    totals: { ...emptyCounts(), withdrawn: 0, rejectedByReason: {}, skippedByReason: {}, notes: {} },
    partial,
    incomplete: opened.missing,
    unchanged: opened.unchanged,
    unreadable: opened.unreadable,
    elapsedMs: 0,
  };
}

export async function stageSources(input: StageSourcesInput, reporter: Reporter, signal: AbortSignal, clock: Clock = systemClock): Promise<StageSourcesResult> {
  const source = findFormat(input.format);
  if (source === undefined) throw new UsageError(`unknown source format "${input.format}"`);
  input = { ...input, recordedOptions: withFormat(input.recordedOptions, input.format) };
  const started = clock.now();
  let inputs: SourceInput[] = [];
  let personsInputs: SourceInput[] = [];
  // A staging file that exists is opened first: what it staged tells which sources need no read.
  let store: StagingStore | undefined = existsSync(input.staging) ? StagingStore.open(input.staging, { lockFor: input.command }) : undefined;
  const buckets = bucketSources(input, reporter, signal, clock);
  try {
    // A Heap Connect folder is read as its manifests say: the files of complete dumps, in dump order.
    const heap = input.format === 'heap' ? await heapInputs(input.files, reporter, buckets) : undefined;
    if (heap !== undefined) input = { ...input, files: heap.files, expandInputs: false };
    const opened = await openRunInputs({ ...input, encoding: input.readerOptions.encoding }, source, reporter, signal, buckets, unchangedTest(input, store));
    inputs = opened.inputs;
    if (source.personsModel === true) ({ events: inputs, persons: personsInputs } = await splitPersonsInputs(inputs));
    store ??= StagingStore.open(input.staging, { lockFor: input.command });
    if (input.replaceChanged !== true) refuseEndpointClashes(store, uniqueObjects(inputs));
    if (input.ingestion !== undefined) input = { ...input, rules: { ...input.rules, ingestion: { ...input.ingestion, importRun: ensureImportRunId(store) } } };
    if (isLinkFormat(input.format)) input = { ...input, rules: { ...input.rules, identityPairs: input.format } };
    const settled = await settleFiles(input, source, store, inputs, opened.unreadable, reporter);
    inputs = settled.map((s) => s.input);
    const replaceChanged = input.replaceChanged === true;
    const plans = planFiles(
      store,
      settled.map(({ input: file, reading, recorded }) => ({
        path: file.path,
        displayName: file.displayName,
        recordedOptions: recorded,
        replaceChanged,
        // A stream cannot be read again, and a JSON array's elements record no point in the text.
        resumable: file.sizeBytes >= 0 && reading.source.layout !== 'array',
        stream: file.sizeBytes < 0,
      })),
    );
    const result = emptyResult(store, opened, reportPartial(store, inputs, reporter));
    // The room is checked before anything is written: a disk too small refuses the run whole.
    await checkStagingRoom(store, inputs, reporter);
    const objects = uniqueObjects(inputs);
    if (objects.length > 0) recordBucketObjects(store, objects, new Date(clock.now()).toISOString());
    checkPassOptions(store, input.passes ?? {});
    const lastRead = lastReadId(store);
    markPassesPending(store);
    const writer = new EventWriter(store);
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
