/**
 * A run's inputs, found and opened wherever they lie: files, directories, globs and zip
 * archives on disk, objects under bucket addresses, a Heap folder's listed files. A source
 * staged before and unchanged since (see staging/unchanged-reads.ts) is not opened: neither its
 * bytes nor, for an object, a request are spent on it.
 */
import { resolve } from 'node:path';
import { InputError, RefusedError } from '../errors.js';
import type { BucketChoices } from '../buckets/bucket-settings.js';
import { BucketSources, isBucketUrl } from '../buckets/open-bucket-inputs.js';
import type { Reporter } from '../reporter.js';
import { expandInput } from '../sources/expand-inputs.js';
import { fileIdentity } from '../sources/file-identity.js';
import { openSourceInput, type BucketObjectRecord, type OpenOptions, type SourceInput } from '../sources/open-input.js';
import type { SourceFormat } from '../sources/source-item.js';
import { openInputs } from '../sources/zip-input.js';
import { endpointClashes } from '../staging/bucket-objects.js';
import type { StagingStore } from '../staging/staging-store.js';
import type { Clock } from '../util/clock.js';
import { count } from '../util/format.js';

/** What the opening needs of the run. */
export interface OpenRequest {
  files: string[];
  encoding?: string;
  expandInputs: boolean;
  buckets?: { choices: BucketChoices; env: Readonly<Record<string, string | undefined>> };
}

/** True for a source (its path, its identity now) staged before as this run would stage it: it is not opened. */
export type Unchanged = (path: string, identity: string) => boolean;

/** The run's inputs, and the files run manifests list that are missing, in words. */
export interface OpenedFiles {
  inputs: SourceInput[];
  /** Files run manifests list that are missing, in words. */
  missing: string[];
  /** Sources staged before and unchanged since, by path: not read again. */
  unchanged: string[];
  /** Files found in a folder that cannot be read, in words: the others are staged, then the run fails. */
  unreadable: string[];
}

/** The bucket objects among the inputs, once each (a zip object's entries share theirs). */
export function uniqueObjects(inputs: readonly SourceInput[]): BucketObjectRecord[] {
  const byUrl = new Map<string, BucketObjectRecord>();
  for (const input of inputs) if (input.bucketObject !== undefined) byUrl.set(input.bucketObject.url, input.bucketObject);
  return [...byUrl.values()];
}

export async function closeAll(inputs: readonly SourceInput[]): Promise<void> {
  await Promise.all(inputs.map((input) => input.close?.()));
}

/** The bucket clients of a run, with the user's choices; closed once the run ends. */
export function bucketSources(request: OpenRequest, reporter: Reporter, signal: AbortSignal, clock: Clock, unchanged: Unchanged | undefined): BucketSources {
  return new BucketSources({ choices: request.buckets?.choices ?? {}, env: request.buckets?.env ?? {}, clock, signal, notice: (text) => reporter.notice(text), unchanged });
}

/** Opens a file on disk (each entry of a zip archive an input), unless it is unchanged since it was staged. */
function openOnDisk(open: (name: string) => Promise<SourceInput[]>, unchanged: Unchanged | undefined, skipped: string[]): (name: string) => Promise<SourceInput[]> {
  return async (name) => {
    const identity = await fileIdentity(name);
    if (identity !== undefined && unchanged?.(resolve(name), identity) === true) {
      skipped.push(resolve(name));
      return [];
    }
    return (await open(name)).map((input) => ({ ...input, identity }));
  };
}

/** Opens a file found in a folder: one that cannot be read is told and left out (the run fails once the others are staged). */
function inFolder(open: (name: string) => Promise<SourceInput[]>, unreadable: string[], reporter: Reporter): (name: string) => Promise<SourceInput[]> {
  return async (name) => {
    try {
      return (await open(name)).map((input) => ({ ...input, foundInFolder: true }));
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      unreadable.push(error.message);
      reporter.warn(`warning: ${error.message}; staging the folder's other files`);
      return [];
    }
  };
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

/** Each name one input: objects a vendor's folder listed (a Heap prefix) opened a few at once, files one by one, in the order named. */
async function openNamed(
  names: readonly string[],
  options: OpenOptions,
  buckets: BucketSources,
  source: SourceFormat,
  onDisk: (open: (name: string) => Promise<SourceInput[]>) => (name: string) => Promise<SourceInput[]>,
): Promise<SourceInput[]> {
  const listed = names.filter((name) => buckets.isListed(name));
  const objects = new Map((await buckets.openListed(listed, source.extensions, options)).map((object) => [object.path, object]));
  const file = onDisk(async (name) => [await openSourceInput(name, options)]);
  try {
    return await openAll(names, async (name) => (buckets.isListed(name) ? [objects.get(name)].filter((o) => o !== undefined) : await file(name)));
  } catch (error) {
    await closeAll([...objects.values()]);
    throw error;
  }
}

/**
 * The files named, expanded and opened as the request asks, bucket addresses among them (each
 * object an input, in key order). A zip archive found in a directory or by a glob that holds
 * nothing the format reads is skipped with a notice, as other files there are; one named on
 * the command line is an error.
 */
export async function openRunInputs(
  request: OpenRequest,
  source: SourceFormat,
  reporter: Reporter,
  signal: AbortSignal,
  buckets: BucketSources,
  unchanged: Unchanged | undefined,
): Promise<OpenedFiles> {
  const options: OpenOptions = { encoding: request.encoding, signal, notice: (text) => reporter.notice(text) };
  const skipped: string[] = [];
  const onDisk = (open: (name: string) => Promise<SourceInput[]>) => openOnDisk(open, unchanged, skipped);
  if (!request.expandInputs) {
    const inputs = await openNamed(request.files, options, buckets, source, onDisk);
    return { inputs, missing: [], unchanged: [...skipped, ...buckets.unchanged], unreadable: [] };
  }
  const inputs: SourceInput[] = [];
  const missing: string[] = [];
  const unreadable: string[] = [];
  const report = { notice: (text: string) => reporter.notice(text), missing: (text: string) => missing.push(text) };
  const seen = new Set<string>();
  try {
    for (const file of request.files) {
      if (isBucketUrl(file)) {
        for (const object of await buckets.open(file, source.extensions, options)) {
          if (!seen.has(object.path)) inputs.push(object);
          seen.add(object.path);
        }
        continue;
      }
      const found = await expandInput(file, source.extensions, report);
      const named = found.length === 1 && found[0] === file;
      const open = onDisk((name) => openInputs(name, source.extensions, { ...options, skipEmptyArchive: named ? undefined : (notice) => reporter.notice(notice) }));
      inputs.push(...(await openAll(found, named ? open : inFolder(open, unreadable, reporter), seen)));
    }
  } catch (error) {
    await closeAll(inputs);
    throw error;
  }
  missing.push(...buckets.missing);
  for (const text of missing) reporter.warn(`warning: ${text}; staging the run's other files`);
  const notRead = [...skipped, ...buckets.unchanged];
  if (inputs.length === 0 && notRead.length === 0 && unreadable.length === 0) throw new InputError(`no source files to read in ${request.files.join(', ')} (the zip archives found hold none)`);
  return { inputs, missing, unchanged: notRead, unreadable };
}

/** The same key read before from another endpoint, with other content: another store's object, never taken for a new version of the one staged. */
export function refuseEndpointClashes(store: StagingStore, objects: readonly BucketObjectRecord[]): void {
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
