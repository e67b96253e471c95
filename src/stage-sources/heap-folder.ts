/**
 * `export-source --from heap <folder>`: the Heap Connect folder (its `manifests/` and
 * `sync_<dump_id>/<table>/` folders) turned into the data files to read, in dump order (see
 * sources/vendors/heap-manifest.ts), before anything is staged; then, once the staging file is
 * open, the rows staged earlier from dumps a full resync replaced are withdrawn.
 */
import { InputError, UsageError } from '../errors.js';
import { isBucketUrl, type BucketSources } from '../buckets/open-bucket-inputs.js';
import type { Reporter } from '../reporter.js';
import { diskPlace } from '../sources/places/disk-place.js';
import type { Place } from '../sources/places/place.js';
import { isHiddenPath, naturalCompare } from '../sources/input-names.js';
import { planHeapFolder, readManifest, type ManifestRead } from '../sources/vendors/heap-manifest.js';
import { withdrawReplacedReads, type ReplacedRows } from '../staging/replaced-reads.js';
import type { StagingStore } from '../staging/staging-store.js';
import { count } from '../util/format.js';

export interface HeapInputs {
  /** The data files to read, in order. */
  files: string[];
  /** Files of replaced dumps (resolved paths, as staged reads record them). */
  replaced: string[];
}

type Manifests = Array<{ name: string; read: Extract<ManifestRead, { ok: true }> }>;

/** The manifests named (paths below the folder, `manifests/<name>.json`), read and checked, in name order. */
async function readManifests(names: readonly string[], read: (path: string) => Promise<string>, place: (path: string) => string): Promise<Manifests> {
  const manifests = [];
  for (const name of [...names].sort(naturalCompare)) {
    const manifest = readManifest(await read(name));
    if (!manifest.ok) throw new InputError(`${place(name)}: not a Heap Connect manifest: ${manifest.message}`);
    manifests.push({ name, read: manifest });
  }
  return manifests;
}

/** What a folder holds: its manifests, its data files (paths below it), and the name of a path below it. */
interface FolderListing {
  manifests: Manifests;
  found: string[];
  place(path: string): string;
  /** The name a staged read records a data file by (a resolved path, an object's address). */
  recorded(path: string): string;
}

const DATA_PATH = /^sync_\d+\/[^/]+\/[^/]+$/;
/** The folders a Heap folder's files lie in: nothing deeper is listed. */
const HEAP_FOLDER = /^(manifests|sync_\d+(\/[^/]+)?)$/;
/** Most bytes of a manifest read: more is not one. */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** A folder (a directory, a bucket prefix) laid out as Heap writes it: listed once, its manifests read, its data files by name. */
async function heapListing(root: string, place: Place, shown: string): Promise<FolderListing> {
  const notHeap = (): InputError => new InputError(`${shown}: not a Heap Connect folder (it must hold manifests/ and the sync_<dump_id>/ folders)`);
  if ((await place.stat(root)).type !== 'folder') throw notHeap();
  const listed = (await place.list(root, (key) => HEAP_FOLDER.test(key) && !isHiddenPath(key))).filter((item) => !isHiddenPath(item.key));
  if (!listed.some((item) => item.key.startsWith('manifests/'))) throw notHeap();
  const entries = new Map(listed.map((item) => [item.key, item.entry]));
  const names = listed.filter((item) => /^manifests\/[^/]+\.json$/i.test(item.key)).map((item) => item.key);
  const found = listed
    .filter((item) => DATA_PATH.test(item.key))
    .map((item) => item.key)
    .sort(naturalCompare);
  const read = async (path: string): Promise<string> => (await place.readWhole(entries.get(path)!, MAX_MANIFEST_BYTES)).toString('utf8');
  const name = (path: string): string => place.join(root, path);
  return { manifests: await readManifests(names, read, name), found, place: name, recorded: (path) => place.recordedName(entries.get(path) ?? { name: name(path), sizeBytes: -1 }) };
}

/** One folder's plan, its paths joined onto the folder (a local folder, or a bucket prefix). */
async function folderInputs(root: string, reporter: Reporter, buckets: BucketSources | undefined): Promise<HeapInputs> {
  const inBucket = isBucketUrl(root);
  if (inBucket && buckets === undefined) throw new UsageError(`--from heap reads a local folder here; ${root} is a bucket address`);
  const place = inBucket ? (buckets!.place(root) as Place) : diskPlace;
  const shown = inBucket ? place.join(root, '') : root;
  const listing = await heapListing(root, place, shown);
  const { manifests } = listing;
  if (manifests.length === 0) throw new InputError(`${shown}: manifests/ holds no manifest, so no Heap sync is complete yet`);
  const plan = planHeapFolder(manifests, listing.found);
  if (plan.missing.length > 0) {
    const shownMissing = plan.missing.slice(0, 5).map((m) => `${listing.place(m.path)} (listed by ${m.manifest})`);
    throw new InputError(`${count(plan.missing.length)} Heap data files the manifests list are missing: ${shownMissing.join(', ')}${plan.missing.length > 5 ? ', ...' : ''}; nothing was staged`, [
      inBucket
        ? 'The sync may still be being copied, or its objects were deleted; stage it again once every object its manifest lists is there.'
        : 'Download the folder again (every file of a sync its manifest lists), then stage it again.',
    ]);
  }
  for (const notice of plan.notices) reporter.notice(notice);
  for (const warning of plan.warnings) reporter.warn(warning);
  return { files: plan.files.map((f) => listing.place(f.path)), replaced: plan.replaced.map((f) => listing.recorded(f.path)) };
}

/** The data files of every Heap folder named (local folders, and bucket prefixes read through `buckets`). */
export async function heapInputs(folders: readonly string[], reporter: Reporter, buckets?: BucketSources): Promise<HeapInputs> {
  const all: HeapInputs = { files: [], replaced: [] };
  for (const folder of folders) {
    const one = await folderInputs(folder, reporter, buckets);
    all.files.push(...one.files);
    all.replaced.push(...one.replaced);
  }
  if (all.files.length === 0) throw new InputError(`no Heap data files to read in ${folders.join(', ')}`);
  return all;
}

/** Withdraws what replaced dumps staged earlier; says what PostHog keeps. */
export function withdrawReplacedDumps(store: StagingStore, heap: HeapInputs, reporter: Reporter): ReplacedRows {
  const replaced = withdrawReplacedReads(store, heap.replaced);
  if (replaced.withdrawn > 0) reporter.notice(`${count(replaced.withdrawn)} rows staged from Heap dumps a later full dump replaced are withdrawn (not sent)`);
  if (replaced.kept > 0) {
    const projects = replaced.projects.map((p) => `${p.name}: ${count(p.count)}`).join(', ');
    reporter.warn(
      `${count(replaced.kept)} rows staged from Heap dumps a later full dump replaced were already sent (${projects}); PostHog cannot delete events, so they stay there next to the new dump's rows`,
    );
  }
  return replaced;
}
