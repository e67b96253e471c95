/**
 * The manifests PostHog's batch exports write beside a run's files (`<start>-<end>_manifest.json`,
 * `{"files": [<keys>]}`, written once the run's files are), the same for a bucket prefix and a
 * folder downloaded from one: the files a manifest lists are its run's files. A file of the run
 * it does not list is left out; a file it lists that is not there makes the run's data
 * incomplete (the others are read, and the run fails, naming it); a file of no run is read and
 * reported when manifests were found. Pure: names are keys (`/`-separated) under one root.
 */

export const MANIFEST_SUFFIX = '_manifest.json';

export function isRunManifest(key: string): boolean {
  return key.endsWith(MANIFEST_SUFFIX);
}

/** A manifest found, by its key, with the keys of the files it lists (under the same root). */
export interface RunManifest {
  key: string;
  files: readonly string[];
}

export interface ManifestVerdict {
  /** The data keys to read, in their order. */
  kept: string[];
  /** Data keys of a run its manifest does not list: not read. */
  leftOut: string[];
  /** Keys a manifest lists that are not there. */
  missing: Array<{ manifest: string; file: string }>;
  /** Data keys of no run (when some manifest was found): read. */
  unlisted: string[];
}

/** The manifest's `files`, or why it cannot be read (`where` names it). */
export function parseManifest(text: string, where: string): string[] | { error: string } {
  let files: unknown;
  try {
    files = (JSON.parse(text) as { files?: unknown }).files;
  } catch (error) {
    return { error: `${where}: a manifest that is not JSON (${(error as Error).message})` };
  }
  if (!Array.isArray(files) || files.some((f) => typeof f !== 'string')) return { error: `${where}: a manifest without a "files" list of keys` };
  return files as string[];
}

/**
 * The manifest found at `key` (under the root), its files as keys under the same root: each by
 * its name, beside the manifest. The keys a manifest lists are those the export wrote; a copy of
 * the export (downloaded, or synced under another prefix) keeps a run's files beside its
 * manifest, under another root.
 */
export function manifestBeside(key: string, text: string, where: string): RunManifest | { error: string } {
  const files = parseManifest(text, where);
  if (!Array.isArray(files)) return files;
  const folder = key.includes('/') ? key.slice(0, key.lastIndexOf('/') + 1) : '';
  return { key, files: files.map((file) => `${folder}${file.slice(file.lastIndexOf('/') + 1)}`) };
}

/** The run a manifest describes: its key without the suffix (`prefix/<start>-<end>`), which its files' keys start with. */
function stemOf(manifest: RunManifest): string {
  return manifest.key.slice(0, -MANIFEST_SUFFIX.length);
}

/** What to read of `data` (the keys a format reads), given every key there (`present`) and the manifests found. */
export function checkRunManifests(present: readonly string[], data: readonly string[], manifests: readonly RunManifest[]): ManifestVerdict {
  const verdict: ManifestVerdict = { kept: [], leftOut: [], missing: [], unlisted: [] };
  if (manifests.length === 0) return { ...verdict, kept: [...data] };
  const there = new Set(present);
  const listed = new Set<string>();
  for (const manifest of manifests) {
    for (const file of manifest.files) {
      listed.add(file);
      if (!there.has(file)) verdict.missing.push({ manifest: manifest.key, file });
    }
  }
  const stems = manifests.map(stemOf);
  for (const key of data) {
    if (listed.has(key)) verdict.kept.push(key);
    else if (stems.some((stem) => key.startsWith(stem))) verdict.leftOut.push(key);
    else {
      verdict.kept.push(key);
      verdict.unlisted.push(key);
    }
  }
  return verdict;
}

/** The notices of a verdict: files left out one by one, files of no run in one line. */
export function manifestNotices(verdict: ManifestVerdict, name: (key: string) => string): string[] {
  const notices = verdict.leftOut.map((key) => `note: ${name(key)}: left out, its run's manifest does not list it`);
  const n = verdict.unlisted.length;
  if (n > 0) notices.push(`note: ${n} file${n === 1 ? '' : 's'} of no run's manifest read as well, e.g. ${name(verdict.unlisted[0]!)}`);
  return notices;
}
