/**
 * An argument turned into the files to read, the same way wherever they lie (a Place): a name
 * that is a file stays itself, even one with glob characters; a folder gives every file below
 * it whose name the format reads (and every `.zip`); a glob gives what it matches, a folder it
 * matches read as a folder. Hidden files and completion markers are skipped, run manifests
 * applied (see run-manifests.ts), and the order is natural and the same on every machine.
 */
import { InputError } from '../../errors.js';
import { hasGlobMagic, isHiddenPath, naturalCompare, splitGlob } from '../input-names.js';
import { checkRunManifests, manifestBeside, manifestNotices, type RunManifest } from '../run-manifests.js';
import type { Listed, Place, PlaceEntry } from './place.js';
import { folderRole, mayMatchBelow, matchSegments, patternRole, type KeyRole } from './place-query.js';

/** Most bytes of a run manifest read: more is not one. */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** A file to read: by its name, with what its place knows of it (absent for a name that is nothing yet, opened to fail). */
export interface Found<E extends PlaceEntry = PlaceEntry> {
  name: string;
  entry?: E;
}

export interface Expanded<E extends PlaceEntry = PlaceEntry> {
  found: Array<Found<E>>;
  /** True when the argument named one file itself: it is read whatever its name, and an error in it ends the run. */
  named: boolean;
  /** Files left out by a run's manifest, or of no run, in words. */
  notices: string[];
  /** Files a run's manifest lists that are not there, in words: the run's data is incomplete. */
  missing: string[];
}

interface Sorted<E extends PlaceEntry> {
  data: Array<Listed<E>>;
  manifests: Array<Listed<E>>;
  others: Array<Listed<E>>;
}

function sortRoles<E extends PlaceEntry>(listed: ReadonlyArray<Listed<E>>, role: (key: string) => KeyRole): Sorted<E> {
  const sorted: Sorted<E> = { data: [], manifests: [], others: [] };
  for (const item of listed) {
    const kind = role(item.key);
    if (kind === 'data') sorted.data.push(item);
    else if (kind === 'manifest') sorted.manifests.push(item);
    else if (kind === 'other') sorted.others.push(item);
  }
  const byKey = (a: Listed<E>, b: Listed<E>): number => naturalCompare(a.key, b.key);
  sorted.data.sort(byKey);
  sorted.manifests.sort(byKey);
  sorted.others.sort(byKey);
  return sorted;
}

/** The data files kept once the manifests found are applied; what they leave out or miss, in words. */
async function applyManifests<E extends PlaceEntry>(place: Place<E>, folder: string, sorted: Sorted<E>, present: readonly string[]): Promise<Omit<Expanded<E>, 'named'>> {
  const found = (items: ReadonlyArray<Listed<E>>): Array<Found<E>> => items.map(({ entry }) => ({ name: entry.name, entry }));
  if (sorted.manifests.length === 0) return { found: found(sorted.data), notices: [], missing: [] };
  const manifests: RunManifest[] = [];
  for (const { key, entry } of sorted.manifests) {
    const manifest = manifestBeside(key, (await place.readWhole(entry, MAX_MANIFEST_BYTES)).toString('utf8'), entry.name);
    if ('error' in manifest) throw new InputError(manifest.error);
    manifests.push(manifest);
  }
  const name = (key: string): string => place.join(folder, key);
  const verdict = checkRunManifests(
    present,
    sorted.data.map((item) => item.key),
    manifests,
  );
  const kept = new Set(verdict.kept);
  return {
    found: found(sorted.data.filter((item) => kept.has(item.key))),
    notices: manifestNotices(verdict, name),
    missing: verdict.missing.map((m) => `${name(m.file)}: listed by ${name(m.manifest)} but not in the ${place.words.container}`),
  };
}

function folderOf(key: string): string {
  return key.slice(0, key.lastIndexOf('/') + 1);
}

/** A folder read: every file below it the format reads. */
async function expandFolder<E extends PlaceEntry>(place: Place<E>, folder: string, extensions: readonly string[], manifests: boolean): Promise<Expanded<E>> {
  const sorted = sortRoles(await place.list(folder, (key) => !isHiddenPath(key)), (key) => folderRole(key, extensions));
  if (!manifests) sorted.manifests = [];
  const applied = await applyManifests(
    place,
    folder,
    sorted,
    [...sorted.data, ...sorted.others].map((item) => item.key),
  );
  if (applied.found.length === 0)
    throw place.nothingToRead(
      folder,
      sorted.others.map((item) => item.entry.name),
      extensions,
      false,
    );
  return { ...applied, named: false };
}

/** A glob: below its fixed folder, what its segments match; manifests beside what it matches apply. */
async function expandPattern<E extends PlaceEntry>(place: Place<E>, arg: string, extensions: readonly string[], manifests: boolean): Promise<Expanded<E>> {
  const { base, segments } = splitGlob(arg);
  const listed = await place.list(base, (key) => mayMatchBelow(segments, key.split('/')));
  const sorted = sortRoles(listed, (key) => patternRole(segments, key, extensions));
  const folders = new Set(sorted.data.map((item) => folderOf(item.key)));
  sorted.manifests = manifests ? sorted.manifests.filter((m) => folders.has(folderOf(m.key)) || matchSegments(segments, m.key.split('/')) !== undefined) : [];
  // Every key listed is there, matched or not: a run's file the pattern leaves out is not missing.
  const applied = await applyManifests(
    place,
    base,
    sorted,
    listed.map((item) => item.key),
  );
  if (applied.found.length === 0)
    throw place.nothingToRead(
      arg,
      listed.map((item) => item.entry.name),
      extensions,
      true,
    );
  return { ...applied, named: false };
}

/**
 * The files an argument names at `place`. With `manifests`, PostHog batch-export run manifests
 * found say which files of their runs are read. An argument that gives nothing is an InputError
 * (a name that is nothing and no pattern is kept, on disk, to fail when opened).
 */
export async function expandArgument<E extends PlaceEntry>(place: Place<E>, arg: string, extensions: readonly string[], manifests = true): Promise<Expanded<E>> {
  const what = await place.stat(arg);
  if (what.type === 'file') return { found: [{ name: arg, entry: what.entry }], named: true, notices: [], missing: [] };
  if (what.type === 'folder') return expandFolder(place, arg, extensions, manifests);
  if (hasGlobMagic(arg)) return expandPattern(place, arg, extensions, manifests);
  return { found: place.missingName(arg, extensions).map((name) => ({ name })), named: true, notices: [], missing: [] };
}
