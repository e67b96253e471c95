/**
 * `export-source --from heap <folder>`: the Heap Connect folder (its `manifests/` and
 * `sync_<dump_id>/<table>/` folders) turned into the data files to read, in dump order (see
 * sources/vendors/heap-manifest.ts), before anything is staged; then, once the staging file is
 * open, the rows staged earlier from dumps a full resync replaced are withdrawn.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InputError, UsageError } from '../errors.js';
import { isBucketUrl, type BucketSources } from '../buckets/open-bucket-inputs.js';
import type { Reporter } from '../reporter.js';
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

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

async function namesIn(dir: string): Promise<string[]> {
  return (await readdir(dir, { withFileTypes: true }).catch(() => [])).filter((e) => !isHiddenPath(e.name)).map((e) => e.name);
}

/** The data files below `root`, as `sync_<id>/<table>/<name>` paths. */
async function dataFiles(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const sync of (await namesIn(root)).filter((name) => /^sync_\d+$/.test(name))) {
    for (const table of await namesIn(join(root, sync))) {
      for (const name of await namesIn(join(root, sync, table))) found.push(`${sync}/${table}/${name}`);
    }
  }
  return found.sort(naturalCompare);
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

/** What a folder holds: its manifests, its data files (paths below it), and the address of a path below it. */
interface FolderListing {
  manifests: Manifests;
  found: string[];
  place(path: string): string;
}

async function diskListing(root: string): Promise<FolderListing> {
  if (!(await isDirectory(root)) || !(await isDirectory(join(root, 'manifests')))) {
    throw new InputError(`${root}: not a Heap Connect folder (it must hold manifests/ and the sync_<dump_id>/ folders)`);
  }
  const names = (await namesIn(join(root, 'manifests'))).filter((name) => name.toLowerCase().endsWith('.json')).map((name) => `manifests/${name}`);
  const place = (path: string): string => join(root, path);
  return { manifests: await readManifests(names, async (path) => readFile(place(path), 'utf8'), place), found: await dataFiles(root), place };
}

const BUCKET_DATA_PATH = /^sync_\d+\/[^/]+\/[^/]+$/;

/** A prefix of a bucket laid out as Heap writes it: its keys listed once, its manifests read, its data objects opened later by address. */
async function bucketListing(root: string, buckets: BucketSources): Promise<FolderListing> {
  const folder = await buckets.folder(root);
  const place = (path: string): string => `${folder.root}${path}`;
  if (!folder.paths.some((path) => path.startsWith('manifests/'))) {
    throw new InputError(`${folder.root}: not a Heap Connect folder (it must hold manifests/ and the sync_<dump_id>/ folders)`);
  }
  const names = folder.paths.filter((path) => /^manifests\/[^/]+\.json$/i.test(path) && !isHiddenPath(path));
  const found = folder.paths.filter((path) => BUCKET_DATA_PATH.test(path) && !isHiddenPath(path)).sort(naturalCompare);
  return { manifests: await readManifests(names, (path) => folder.readText(path), place), found, place };
}

/** One folder's plan, its paths joined onto the folder (a local folder, or a bucket prefix). */
async function folderInputs(root: string, reporter: Reporter, buckets: BucketSources | undefined): Promise<HeapInputs> {
  const inBucket = isBucketUrl(root);
  if (inBucket && buckets === undefined) throw new UsageError(`--from heap reads a local folder here; ${root} is a bucket address`);
  const listing = inBucket ? await bucketListing(root, buckets!) : await diskListing(root);
  const { manifests, place } = listing;
  if (manifests.length === 0) throw new InputError(`${inBucket ? place('') : root}: manifests/ holds no manifest, so no Heap sync is complete yet`);
  const plan = planHeapFolder(manifests, listing.found);
  if (plan.missing.length > 0) {
    const shown = plan.missing.slice(0, 5).map((m) => `${place(m.path)} (listed by ${m.manifest})`);
    throw new InputError(`${count(plan.missing.length)} Heap data files the manifests list are missing: ${shown.join(', ')}${plan.missing.length > 5 ? ', ...' : ''}; nothing was staged`, [
      inBucket
        ? 'The sync may still be being copied, or its objects were deleted; stage it again once every object its manifest lists is there.'
        : 'Download the folder again (every file of a sync its manifest lists), then stage it again.',
    ]);
  }
  for (const notice of plan.notices) reporter.notice(notice);
  for (const warning of plan.warnings) reporter.warn(warning);
  // A staged read records a file by its resolved path, an object by its address.
  const recorded = (path: string): string => (inBucket ? place(path) : resolve(root, path));
  return { files: plan.files.map((f) => place(f.path)), replaced: plan.replaced.map((f) => recorded(f.path)) };
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
