/**
 * The objects an address names, in key order: one key, every object under a prefix whose name
 * the format reads (as a directory is read), or the keys a glob matches. Listings are followed
 * page by page (S3 gives at most 1,000 keys a page). Markers and manifests exporters write
 * beside their data are never data; where a PostHog batch export wrote a manifest, the files it
 * lists are what is read of its run (a file of the run it does not list is left out, with a
 * notice), and a file it lists that is missing is an error.
 */
import { InputError } from '../errors.js';
import { withRetries, type BucketContext } from './bucket-calls.js';
import { keyQuery, keySelected, listPrefix, parseBucketUrl, objectUrl, type BucketUrl } from './bucket-url.js';
import type { ObjectInfo } from './s3-client.js';

export interface ListedObjects {
  address: BucketUrl;
  objects: ObjectInfo[];
  /** Objects left out, in words (not in their run's manifest). */
  notices: string[];
}

async function listAll(context: BucketContext, address: BucketUrl, prefix: string): Promise<ObjectInfo[]> {
  const url = objectUrl(address.scheme, address.bucket, prefix);
  const all: ObjectInfo[] = [];
  let token: string | undefined;
  do {
    const page = await withRetries(context, { type: 'list', bucket: address.bucket, url }, () => context.calls.listPage(address.bucket, prefix, token, context.signal));
    all.push(...page.objects);
    token = page.next;
  } while (token !== undefined);
  return all;
}

async function readSmallObject(context: BucketContext, bucket: string, url: string, object: ObjectInfo): Promise<string> {
  const { body } = await withRetries(context, { type: 'read', bucket, url }, () => context.calls.getObject(bucket, object.key, { startByte: 0 }, context.signal));
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** A manifest's `files` (full keys, or `s3://` addresses), or an error naming it. */
export function manifestFiles(text: string, url: string, bucket: string): string[] {
  let files: unknown;
  try {
    files = (JSON.parse(text) as { files?: unknown }).files;
  } catch (error) {
    throw new InputError(`${url}: a manifest that is not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(files) || files.some((f) => typeof f !== 'string')) throw new InputError(`${url}: a manifest without a "files" list of keys`);
  return (files as string[]).map((file) => {
    const parsed = parseBucketUrl(file);
    return parsed !== undefined && parsed.bucket === bucket ? parsed.path : file.replace(/^\/+/, '');
  });
}

/** Applies the manifests found: the runs they describe keep only the files they list. */
async function applyManifests(context: BucketContext, address: BucketUrl, listed: ObjectInfo[], selected: ObjectInfo[]): Promise<{ objects: ObjectInfo[]; notices: string[] }> {
  const manifests = listed.filter((o) => o.key.endsWith('_manifest.json'));
  if (manifests.length === 0) return { objects: selected, notices: [] };
  const keys = new Set(listed.map((o) => o.key));
  const listedByManifest = new Set<string>();
  const stems: string[] = [];
  for (const manifest of manifests) {
    const url = objectUrl(address.scheme, address.bucket, manifest.key);
    const files = manifestFiles(await readSmallObject(context, address.bucket, url, manifest), url, address.bucket);
    const missing = files.filter((f) => !keys.has(f));
    if (missing.length > 0)
      throw new InputError(`${url}: lists ${missing.length} file(s) not in the bucket, e.g. ${objectUrl(address.scheme, address.bucket, missing[0]!)}`, [
        'The export may still be writing; run again once it has finished.',
      ]);
    for (const f of files) listedByManifest.add(f);
    stems.push(manifest.key.slice(0, -'_manifest.json'.length));
  }
  const notices: string[] = [];
  const objects = selected.filter((o) => {
    const ofRun = stems.some((stem) => o.key.startsWith(stem));
    if (!ofRun || listedByManifest.has(o.key)) return true;
    notices.push(`note: ${objectUrl(address.scheme, address.bucket, o.key)}: left out, its run's manifest does not list it`);
    return false;
  });
  return { objects, notices };
}

/** The objects an address names; an address that names none is an InputError. */
export async function listObjects(context: BucketContext, arg: string, extensions: readonly string[]): Promise<ListedObjects> {
  const address = parseBucketUrl(arg);
  if (address === undefined) throw new InputError(`${arg}: not a bucket address (s3://bucket/prefix/ or gs://bucket/prefix/)`);
  const query = keyQuery(address.path);
  const listed = await listAll(context, address, listPrefix(query));
  const exact = query.type === 'key-or-prefix' ? listed.find((o) => o.key === query.key) : undefined;
  const selected = exact !== undefined ? [exact] : listed.filter((o) => keySelected(query, o.key, extensions));
  selected.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const { objects, notices } = exact !== undefined ? { objects: selected, notices: [] } : await applyManifests(context, address, listed, selected);
  if (objects.length === 0) {
    const others = listed.length === 0 ? 'nothing is stored there' : `${listed.length} other object(s) are, e.g. ${objectUrl(address.scheme, address.bucket, listed[0]!.key)}`;
    throw new InputError(`${arg}: no source objects there (looked for names ending ${[...extensions, '.zip'].join(', ')}, optionally .gz; ${others})`, [
      'Name an object itself to read it whatever its name.',
    ]);
  }
  return { address, objects, notices };
}
