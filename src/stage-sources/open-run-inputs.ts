/**
 * A run's inputs, found and opened wherever they lie: files, directories, globs and zip
 * archives on disk, objects under bucket addresses, a Heap folder's listed files. A source
 * staged before and unchanged since (see staging/unchanged-reads.ts) is not opened: neither its
 * bytes nor, for an object, a request are spent on it.
 */
import { InputError, RefusedError } from '../errors.js';
import type { BucketEntry } from '../buckets/bucket-place.js';
import type { BucketChoices } from '../buckets/bucket-settings.js';
import { BucketSources, isBucketUrl } from '../buckets/open-bucket-inputs.js';
import type { Reporter } from '../reporter.js';
import { openSourceInput, type BucketObjectRecord, type OpenOptions, type SourceInput } from '../sources/open-input.js';
import { diskPlace } from '../sources/places/disk-place.js';
import { expandArgument, type Expanded } from '../sources/places/expand-argument.js';
import type { Place } from '../sources/places/place.js';
import type { SourceFormat } from '../sources/source-item.js';
import { openInputs, type OpenInputsOptions } from '../sources/zip-input.js';
import { endpointClashes } from '../staging/bucket-objects.js';
import type { StagingStore } from '../staging/staging-store.js';
import type { Clock } from '../util/clock.js';
import { count } from '../util/format.js';
import { openFound, type Opener, type Opening, type Unchanged } from './open-found.js';

export type { Unchanged } from './open-found.js';

/** Objects looked at at once while a run opens its inputs: a request each. */
const OPENING_CONCURRENCY = 8;

/** What the opening needs of the run. */
export interface OpenRequest {
  files: string[];
  encoding?: string;
  expandInputs: boolean;
  buckets?: { choices: BucketChoices; env: Readonly<Record<string, string | undefined>> };
}

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
export function bucketSources(request: OpenRequest, reporter: Reporter, signal: AbortSignal, clock: Clock): BucketSources {
  return new BucketSources({ choices: request.buckets?.choices ?? {}, env: request.buckets?.env ?? {}, clock, signal, notice: (text) => reporter.notice(text) });
}

/** How the files at an argument's place are opened: objects as objects; files by name, a zip file's entries each an input when arguments are expanded. */
function openerFor(arg: string, buckets: BucketSources, source: SourceFormat, options: OpenOptions, expand: boolean): Opener {
  if (isBucketUrl(arg)) {
    const place = buckets.place(arg);
    return {
      place: place as Place,
      concurrency: OPENING_CONCURRENCY,
      open: async (found, more) => {
        if (found.entry === undefined) throw new InputError(`${found.name}: no such object`);
        return buckets.openEntry(found.entry as BucketEntry, source.extensions, { ...options, ...more });
      },
    };
  }
  const open = expand ? (name: string, more: OpenInputsOptions) => openInputs(name, source.extensions, { ...options, ...more }) : async (name: string) => [await openSourceInput(name, options)];
  return { place: diskPlace, concurrency: 1, open: async (found, more) => open(found.name, more) };
}

/** An argument taken as it is (a vendor's folder listed it, or identify names it): the one file it names. */
async function asNamed(place: Place, arg: string): Promise<Expanded> {
  const what = await place.stat(arg);
  return { found: [{ name: arg, entry: what.type === 'file' ? what.entry : undefined }], named: true, notices: [], missing: [] };
}

/**
 * What each argument gives, with the opener of its place. Arguments taken as they are (a
 * vendor's folder's thousands of objects) are joined while they share a place, to be opened a
 * few at once as one argument's are.
 */
async function argumentsFound(request: OpenRequest, buckets: BucketSources, source: SourceFormat, options: OpenOptions): Promise<Array<{ opener: Opener; expanded: Expanded }>> {
  const all: Array<{ opener: Opener; expanded: Expanded }> = [];
  for (const arg of request.files) {
    const opener = openerFor(arg, buckets, source, options, request.expandInputs);
    if (request.expandInputs) {
      all.push({ opener, expanded: await expandArgument(opener.place, arg, source.extensions) });
      continue;
    }
    const one = await asNamed(opener.place, arg);
    const last = all.at(-1);
    if (last !== undefined && last.opener.place === opener.place) last.expanded.found.push(...one.found);
    else all.push({ opener, expanded: one });
  }
  return all;
}

/**
 * The files named, expanded and opened as the request asks, bucket addresses among them (each
 * object an input, in natural order). A zip archive found in a folder or by a glob that holds
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
  const opening: Opening = { inputs: [], unchanged: [], unreadable: [], seen: new Set() };
  const missing: string[] = [];
  try {
    for (const { opener, expanded } of await argumentsFound(request, buckets, source, options)) {
      for (const notice of expanded.notices) reporter.notice(notice);
      missing.push(...expanded.missing);
      await openFound(opener, expanded, opening, unchanged, reporter);
    }
  } catch (error) {
    await closeAll(opening.inputs);
    throw error;
  }
  for (const text of missing) reporter.warn(`warning: ${text}; staging the run's other files`);
  const { inputs, unreadable } = opening;
  if (request.expandInputs && inputs.length === 0 && opening.unchanged.length === 0 && unreadable.length === 0) {
    throw new InputError(`no source files to read in ${request.files.join(', ')} (the zip archives found hold none)`);
  }
  return { inputs, missing, unchanged: opening.unchanged, unreadable };
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
