/**
 * `export-source --from heap <folder>`: the Heap Connect folder (its `manifests/` and
 * `sync_<dump_id>/<table>/` folders) turned into the data files to read, in dump order (see
 * sources/vendors/heap-manifest.ts), before anything is staged; then, once the staging file is
 * open, the rows staged earlier from dumps a full resync replaced are withdrawn.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InputError, UsageError } from '../errors.js';
import { isBucketUrl } from '../buckets/open-bucket-inputs.js';
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

async function manifestsIn(root: string): Promise<Array<{ name: string; read: Extract<ManifestRead, { ok: true }> }>> {
  const names = (await namesIn(join(root, 'manifests'))).filter((name) => name.toLowerCase().endsWith('.json')).sort(naturalCompare);
  const manifests = [];
  for (const name of names) {
    const path = join(root, 'manifests', name);
    const read = readManifest(await readFile(path, 'utf8'));
    if (!read.ok) throw new InputError(`${path}: not a Heap Connect manifest: ${read.message}`);
    manifests.push({ name: `manifests/${name}`, read });
  }
  return manifests;
}

/** One folder's plan, its paths joined onto the folder. */
async function folderInputs(root: string, reporter: Reporter): Promise<HeapInputs> {
  if (isBucketUrl(root))
    throw new UsageError(`--from heap reads a local folder; ${root} is a bucket address`, ['Copy the bucket down first (for example `aws s3 sync s3://<bucket> <folder>`), then stage the folder.']);
  if (!(await isDirectory(root)) || !(await isDirectory(join(root, 'manifests')))) {
    throw new InputError(`${root}: not a Heap Connect folder (it must hold manifests/ and the sync_<dump_id>/ folders)`);
  }
  const manifests = await manifestsIn(root);
  if (manifests.length === 0) throw new InputError(`${root}: manifests/ holds no manifest, so no Heap sync is complete yet`);
  const plan = planHeapFolder(manifests, await dataFiles(root));
  if (plan.missing.length > 0) {
    const shown = plan.missing.slice(0, 5).map((m) => `${join(root, m.path)} (listed by ${m.manifest})`);
    throw new InputError(`${count(plan.missing.length)} Heap data files the manifests list are missing: ${shown.join(', ')}${plan.missing.length > 5 ? ', ...' : ''}; nothing was staged`, [
      'Download the folder again (every file of a sync its manifest lists), then stage it again.',
    ]);
  }
  for (const notice of plan.notices) reporter.notice(notice);
  for (const warning of plan.warnings) reporter.warn(warning);
  return { files: plan.files.map((f) => join(root, f.path)), replaced: plan.replaced.map((f) => resolve(root, f.path)) };
}

/** The data files of every Heap folder named. */
export async function heapInputs(folders: readonly string[], reporter: Reporter): Promise<HeapInputs> {
  const all: HeapInputs = { files: [], replaced: [] };
  for (const folder of folders) {
    const one = await folderInputs(folder, reporter);
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
