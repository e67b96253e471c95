/**
 * Expands a command-line argument into source files: a file stays itself; a directory gives
 * every file below it whose name the format reads (and every `.zip`); a glob gives what it
 * matches (shells usually expand globs first; a quoted one is expanded here). Hidden files and
 * completion markers (`complete`, `_SUCCESS`) are skipped, and the order is natural and the
 * same on every machine.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { classifyName, globSegmentToRegExp, hasGlobMagic, isHiddenPath, isMarkerName, naturalCompare, NOT_READ, splitGlob } from './input-names.js';

interface DirectoryFiles {
  matching: string[];
  others: string[];
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
      (classifyName(entry.name, extensions) ? out.matching : out.others).push(path);
    }
  }
}

function describe(extensions: readonly string[]): string {
  return [...extensions.filter((ext) => !ext.startsWith(NOT_READ)), '.zip'].join(', ');
}

async function listDirectory(dir: string, extensions: readonly string[]): Promise<DirectoryFiles> {
  const found: DirectoryFiles = { matching: [], others: [] };
  try {
    await walk(dir, extensions, found);
  } catch (error) {
    throw new InputError(`${dir}: cannot list the directory (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  found.matching.sort(naturalCompare);
  return found;
}

async function expandDirectory(dir: string, extensions: readonly string[]): Promise<string[]> {
  const found = await listDirectory(dir, extensions);
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
  const matching = entries.filter((e) => pattern.test(e.name) && (segment.startsWith('.') || !isHiddenPath(e.name)) && (e.isDirectory() || !isMarkerName(e.name)));
  for (const entry of matching.sort((a, b) => naturalCompare(a.name, b.name))) {
    const path = join(dir, entry.name);
    if (rest.length === 0 || (await isDirectory(path))) await matchGlob(path, rest, extensions, out);
  }
}

/**
 * The files an argument names. Directories are read recursively for names the format reads
 * (`extensions`, with or without `.gz`, and `.zip`); an explicitly named file is read whatever
 * its name. A directory or glob that gives nothing is an InputError.
 */
export async function expandInput(arg: string, extensions: readonly string[]): Promise<string[]> {
  if (await isDirectory(arg)) return expandDirectory(arg, extensions);
  if (!hasGlobMagic(arg) || (await exists(arg))) return [arg];
  const { base, segments } = splitGlob(arg);
  const out: string[] = [];
  await matchGlob(base, segments, extensions, out);
  if (out.length === 0) throw new InputError(`${arg}: no file matches this pattern`);
  return out;
}
