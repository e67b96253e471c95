/**
 * Expands a command-line argument into files on disk (see places/expand-argument.ts, the same
 * rules as a bucket prefix's): a file stays itself; a directory gives every file below it whose
 * name the format reads (and every `.zip`); a glob gives what it matches (shells usually expand
 * globs first; a quoted one is expanded here).
 */
import { diskPlace } from './places/disk-place.js';
import { expandArgument } from './places/expand-argument.js';

/** Told what a directory's run manifests left out or found missing; absent, they are not looked at. */
export interface ManifestReport {
  notice(text: string): void;
  /** A file a manifest lists that is not there, in words. */
  missing(text: string): void;
}

/**
 * The files an argument names. Directories are read recursively for names the format reads
 * (`extensions`, with or without `.gz`, and `.zip`); an explicitly named file is read whatever
 * its name. A directory or glob that gives nothing is an InputError. With `report`, PostHog
 * batch-export run manifests say which of its files are read (see run-manifests.ts).
 */
export async function expandInput(arg: string, extensions: readonly string[], report?: ManifestReport): Promise<string[]> {
  const expanded = await expandArgument(diskPlace, arg, extensions, report !== undefined);
  for (const notice of expanded.notices) report?.notice(notice);
  for (const missing of expanded.missing) report?.missing(missing);
  return expanded.found.map((found) => found.name);
}
