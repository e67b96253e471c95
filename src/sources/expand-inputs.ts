/**
 * Expands a command-line argument into source files: a file stays itself; a directory gives
 * every file below it whose name the format reads (and every `.zip`); a glob gives what it
 * matches (shells usually expand globs first; a quoted one is expanded here). Hidden files and
 * completion markers (`complete`, `_SUCCESS`) are skipped, and the order is natural and the
 * same on every machine.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { InputError } from '../errors.js';
import { classifyName, globSegmentToRegExp, hasGlobMagic, isHiddenPath, isMarkerName, naturalCompare, NOT_READ, splitGlob } from './input-names.js';
import { checkRunManifests, isRunManifest, manifestBeside, manifestNotices, type RunManifest } from './run-manifests.js';

interface DirectoryFiles {
  matching: string[];
  others: string[];
  /** PostHog batch-export run manifests: never data. */
  manifests: string[];
}

/** Told what a directory's run manifests left out or found missing; absent, they are not looked at. */
export interface ManifestReport {
  notice(text: string): void;
  /** A file a manifest lists that is not there, in words. */
  missing(text: string): void;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Every non-hidden regular file below `dir`, as paths joined onto `dir`. */
async function walk(dir: string, extensions: readonly string[], out: DirectoryFiles): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    if (isHiddenPath(entry.name)) continue;
    const path = join(dir, entry.name);
    if (isMarkerName(entry.name) && !entry.isDirectory()) continue;
    if (entry.isDirectory()) await walk(path, extensions, out);
    else if (entry.isFile() || (entry.isSymbolicLink() && !(await isDirectory(path)))) {
      (isRunManifest(entry.name) ? out.manifests : classifyName(entry.name, extensions) ? out.matching : out.others).push(path);
    }
  }
}

function describe(extensions: readonly string[]): string {
  return [...extensions.filter((ext) => !ext.startsWith(NOT_READ)), '.zip'].join(', ');
}

async function listDirectory(dir: string, extensions: readonly string[]): Promise<DirectoryFiles> {
  const found: DirectoryFiles = { matching: [], others: [], manifests: [] };
  try {
    await walk(dir, extensions, found);
  } catch (error) {
    throw new InputError(`${dir}: cannot list the directory (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  found.matching.sort(naturalCompare);
  return found;
}

/** A path under `dir` as a key: relative, `/`-separated. */
function keyOf(dir: string, path: string): string {
  return relative(dir, path).split(sep).join('/');
}

/**
 * The files of a directory to read, its run manifests applied (see run-manifests.ts). A folder
 * downloaded from a bucket keeps a run's files beside its manifest, under another root than the
 * bucket's keys: a listed key is looked for by its name, in the manifest's folder.
 */
async function applyManifests(dir: string, found: DirectoryFiles, report: ManifestReport | undefined): Promise<string[]> {
  if (report === undefined || found.manifests.length === 0) return found.matching;
  const manifests: RunManifest[] = [];
  for (const path of found.manifests.sort(naturalCompare)) {
    const manifest = manifestBeside(keyOf(dir, path), await readFile(path, 'utf8'), path);
    if ('error' in manifest) throw new InputError(manifest.error);
    manifests.push(manifest);
  }
  const verdict = checkRunManifests(
    [...found.matching, ...found.others].map((path) => keyOf(dir, path)),
    found.matching.map((path) => keyOf(dir, path)),
    manifests,
  );
  for (const notice of manifestNotices(verdict, (key) => join(dir, key))) report.notice(notice);
  for (const m of verdict.missing) report.missing(`${join(dir, m.file)}: listed by ${join(dir, m.manifest)} but not in the folder`);
  return verdict.kept.map((key) => join(dir, key));
}

async function expandDirectory(dir: string, extensions: readonly string[], report: ManifestReport | undefined): Promise<string[]> {
  const found = await listDirectory(dir, extensions);
  found.matching = await applyManifests(dir, found, report);
  if (found.matching.length === 0) {
    const others = found.others.length === 0 ? 'it has no files' : `it has ${found.others.length} other file(s), e.g. ${found.others.sort(naturalCompare)[0]}`;
    throw new InputError(`${dir}: no source files in this directory (looked for names ending ${describe(extensions)}, optionally .gz; ${others})`, [
      'Name the files themselves to read them whatever their names.',
    ]);
  }
  return found.matching;
}

/** Matches `segments` below `dir`; `**` matches any depth. Folders matched last are expanded. */
async function matchGlob(dir: string, segments: string[], extensions: readonly string[], out: string[]): Promise<void> {
  const [segment, ...rest] = segments;
  if (segment === undefined) {
    // A folder the pattern matches is read like a directory; one with no source files adds none.
    if (await isDirectory(dir)) out.push(...(await listDirectory(dir, extensions)).matching);
    else out.push(dir);
    return;
  }
  if (segment === '**') {
    await matchGlob(dir, rest, extensions, out);
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (entry.isDirectory() && !isHiddenPath(entry.name)) await matchGlob(join(dir, entry.name), segments, extensions, out);
    }
    return;
  }
  if (!hasGlobMagic(segment)) {
    const path = join(dir, segment);
    if (await exists(path)) await matchGlob(path, rest, extensions, out);
    return;
  }
  const pattern = globSegmentToRegExp(segment);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const matching = entries.filter((e) => pattern.test(e.name) && (segment.startsWith('.') || !isHiddenPath(e.name)) && (e.isDirectory() || !(isMarkerName(e.name) || isRunManifest(e.name))));
  for (const entry of matching.sort((a, b) => naturalCompare(a.name, b.name))) {
    const path = join(dir, entry.name);
    if (rest.length === 0 || (await isDirectory(path))) await matchGlob(path, rest, extensions, out);
  }
}

/**
 * The files an argument names. Directories are read recursively for names the format reads
 * (`extensions`, with or without `.gz`, and `.zip`); an explicitly named file is read whatever
 * its name. A directory or glob that gives nothing is an InputError. With `report`, a directory's
 * PostHog batch-export run manifests say which of its files are read (see run-manifests.ts).
 */
export async function expandInput(arg: string, extensions: readonly string[], report?: ManifestReport): Promise<string[]> {
  if (await isDirectory(arg)) return expandDirectory(arg, extensions, report);
  if (!hasGlobMagic(arg) || (await exists(arg))) return [arg];
  const { base, segments } = splitGlob(arg);
  const out: string[] = [];
  await matchGlob(base, segments, extensions, out);
  if (out.length === 0) throw new InputError(`${arg}: no file matches this pattern`);
  return out;
}
