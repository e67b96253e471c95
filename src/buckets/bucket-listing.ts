/**
 * The objects an address names, in key order: one key, every object under a prefix whose name
 * the format reads (as a directory is read), or the keys a glob matches. Listings are followed
 * page by page (S3 gives at most 1,000 keys a page). Markers and manifests exporters write
 * beside their data are never data; where a PostHog batch export wrote a manifest, the files it
 * lists are what is read of its run (see sources/run-manifests.ts): a file it lists that is
 * missing is returned, so the run stages the others and then fails naming it.
 */
import { InputError } from '../errors.js';
import { withRetries, type BucketContext } from './bucket-calls.js';
import { keyQuery, keySelected, listPrefix, parseBucketUrl, objectUrl, type BucketUrl } from './bucket-url.js';
import type { ObjectInfo, PageStart } from './s3-client.js';
import { checkRunManifests, isRunManifest, manifestBeside, manifestNotices, type RunManifest } from '../sources/run-manifests.js';

export interface ListedObjects {
  address: BucketUrl;
  objects: ObjectInfo[];
  /** Objects left out or of no run, in words. */
  notices: string[];
  /** Files a run's manifest lists that are not there, in words: the run's data is incomplete. */
  missing: string[];
}

/** Every object under `prefix`, page after page. */
export async function listAll(context: BucketContext, address: BucketUrl, prefix: string): Promise<ObjectInfo[]> {
  const url = objectUrl(address.scheme, address.bucket, prefix);
  const all: ObjectInfo[] = [];
  let next: PageStart | undefined;
  do {
    const after = next;
    const page = await withRetries(context, { type: 'list', bucket: address.bucket, url }, () => context.calls.listPage(address.bucket, prefix, after, context.signal));
    all.push(...page.objects);
    next = page.next;
  } while (next !== undefined);
  return all;
}

async function readSmallObject(context: BucketContext, bucket: string, url: string, object: ObjectInfo): Promise<string> {
  const { body } = await withRetries(context, { type: 'read', bucket, url }, () => context.calls.getObject(bucket, object.key, { startByte: 0 }, context.signal));
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** A manifest's files, as keys beside it (see run-manifests.ts manifestBeside), or an error naming it. */
export function manifestFiles(text: string, url: string, manifestKey: string): string[] {
  const manifest = manifestBeside(manifestKey, text, url);
  if ('error' in manifest) throw new InputError(manifest.error);
  return [...manifest.files];
}

/** Applies the manifests found: the runs they describe keep only the files they list; a listed file that is missing is told, the others read. */
async function applyManifests(context: BucketContext, address: BucketUrl, listed: ObjectInfo[], selected: ObjectInfo[]): Promise<Omit<ListedObjects, 'address'>> {
  const manifests: RunManifest[] = [];
  for (const manifest of listed.filter((o) => isRunManifest(o.key))) {
    const url = objectUrl(address.scheme, address.bucket, manifest.key);
    manifests.push({ key: manifest.key, files: manifestFiles(await readSmallObject(context, address.bucket, url, manifest), url, manifest.key) });
  }
  const verdict = checkRunManifests(
    listed.map((o) => o.key),
    selected.map((o) => o.key),
    manifests,
  );
  const url = (key: string): string => objectUrl(address.scheme, address.bucket, key);
  const kept = new Set(verdict.kept);
  return {
    objects: selected.filter((o) => kept.has(o.key)),
    notices: manifestNotices(verdict, url),
    missing: verdict.missing.map((m) => `${url(m.file)}: listed by ${url(m.manifest)} but not in the bucket`),
  };
}

/** The objects an address names; an address that names none is an InputError. */
export async function listObjects(context: BucketContext, arg: string, extensions: readonly string[]): Promise<ListedObjects> {
  const address = parseBucketUrl(arg);
  if (address === undefined) throw new InputError(`${arg}: not a bucket address (s3://bucket/prefix/ or gs://bucket/prefix/)`);
  const query = keyQuery(address.path);
  const listed = await listAll(context, address, listPrefix(query));
  // A key is read when named exactly, even one whose name looks like a pattern (`events [1].json`), as a file of that name is.
  const exact = query.type === 'prefix' ? undefined : listed.find((o) => o.key === address.path);
  const selected = exact !== undefined ? [exact] : listed.filter((o) => keySelected(query, o.key, extensions));
  selected.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const { objects, notices, missing } = exact !== undefined ? { objects: selected, notices: [], missing: [] } : await applyManifests(context, address, listed, selected);
  if (objects.length === 0) {
    const others = listed.length === 0 ? 'nothing is stored there' : `${listed.length} other object(s) are, e.g. ${objectUrl(address.scheme, address.bucket, listed[0]!.key)}`;
    throw new InputError(`${arg}: no source objects there (looked for names ending ${[...extensions, '.zip'].join(', ')}, optionally .gz; ${others})`, [
      'Name an object itself to read it whatever its name.',
    ]);
  }
  return { address, objects, notices, missing };
}
