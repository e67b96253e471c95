/**
 * A bucket as a Place (see sources/places/place.ts): a prefix is a folder, an object a file.
 * Each prefix is listed once a run, page by page, and the listings kept serve the names below
 * them (the name an argument gives, then the folder it is). Reads go through object-bytes.ts
 * (ranged, resumed where a connection dropped), every call through the one retry path.
 */
import { InputError } from '../errors.js';
import { objectIdentity } from '../sources/file-identity.js';
import { hasGlobMagic } from '../sources/input-names.js';
import type { Listed, Place, PlaceEntry, PlaceStat } from '../sources/places/place.js';
import { withRetries, type BucketContext } from './bucket-calls.js';
import { objectUrl, parseBucketUrl, type BucketUrl } from './bucket-url.js';
import { objectChunks, type ObjectAddress } from './object-bytes.js';
import type { ObjectInfo, PageStart } from './s3-client.js';

/** An object found: its address and what the listing told of it. */
export interface BucketEntry extends PlaceEntry {
  address: ObjectAddress;
}

/** Every object under `prefix`, page after page. */
async function listAll(context: BucketContext, address: BucketUrl, prefix: string): Promise<ObjectInfo[]> {
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

function parsed(name: string): BucketUrl {
  const address = parseBucketUrl(name);
  if (address === undefined) throw new InputError(`${name}: not a bucket address (s3://bucket/prefix/ or gs://bucket/prefix/)`);
  return address;
}

/** A folder's prefix: `heap` and `heap/` are the same folder; the bucket's root is ''. */
function folderPrefix(path: string): string {
  return path === '' || path.endsWith('/') ? path : `${path}/`;
}

/** The prefix listed to tell what a name is: the name itself, or for a pattern its fixed folders (which the pattern lists next). */
function statPrefix(path: string): string {
  if (!hasGlobMagic(path)) return path;
  const parts = path.split('/');
  return folderPrefix(
    parts
      .slice(
        0,
        parts.findIndex((part) => hasGlobMagic(part)),
      )
      .join('/'),
  );
}

export class BucketPlace implements Place<BucketEntry> {
  readonly words = { container: 'bucket' };
  /** Listings made, by bucket and prefix. */
  private readonly listings = new Map<string, { bucket: string; prefix: string; objects: Promise<ObjectInfo[]> }>();
  /** Every object a listing gave, by bucket and key: a name below a listed prefix is found at once. */
  private readonly known = new Map<string, ObjectInfo>();

  constructor(private readonly context: BucketContext & { identity?: string }) {}

  /** The listing made before that covers `prefix`, if any. */
  private covering(bucket: string, prefix: string): Promise<ObjectInfo[]> | undefined {
    for (const listing of this.listings.values()) if (listing.bucket === bucket && prefix.startsWith(listing.prefix)) return listing.objects;
    return undefined;
  }

  /** The objects under `prefix`, from a listing made before when one covers it. */
  private async objects(address: BucketUrl, prefix: string): Promise<ObjectInfo[]> {
    const covering = this.covering(address.bucket, prefix);
    if (covering !== undefined) return (await covering).filter((o) => o.key.startsWith(prefix));
    const id = JSON.stringify([address.bucket, prefix]);
    const objects = listAll(this.context, address, prefix).then((all) => {
      for (const object of all) this.known.set(JSON.stringify([address.bucket, object.key]), object);
      return all;
    });
    this.listings.set(id, { bucket: address.bucket, prefix, objects });
    objects.catch(() => this.listings.delete(id));
    return objects;
  }

  private entry(address: BucketUrl, object: ObjectInfo): BucketEntry {
    const url = objectUrl(address.scheme, address.bucket, object.key);
    return { name: url, sizeBytes: object.sizeBytes, address: { bucket: address.bucket, url, object } };
  }

  async stat(name: string): Promise<PlaceStat<BucketEntry>> {
    const address = parsed(name);
    // A key ending in `/` names a folder, even where a console made an empty object of that name.
    if (address.path === '' || address.path.endsWith('/')) return { type: 'folder' };
    // A vendor's folder names each of thousands of objects it listed: each found without a scan.
    const known = this.known.get(JSON.stringify([address.bucket, address.path]));
    if (known !== undefined) return { type: 'file', entry: this.entry(address, known) };
    const objects = await this.objects(address, statPrefix(address.path));
    const exact = objects.find((o) => o.key === address.path);
    if (exact !== undefined) return { type: 'file', entry: this.entry(address, exact) };
    const below = folderPrefix(address.path);
    return objects.some((o) => o.key.startsWith(below) && !o.key.endsWith('/')) ? { type: 'folder' } : { type: 'missing' };
  }

  async list(folder: string): Promise<Array<Listed<BucketEntry>>> {
    const address = parsed(folder);
    const prefix = folderPrefix(address.path);
    const objects = await this.objects(address, prefix);
    // A key ending in `/` is a folder a console made, never data.
    return objects.filter((o) => !o.key.endsWith('/')).map((o) => ({ key: o.key.slice(prefix.length), entry: this.entry(address, o) }));
  }

  join(folder: string, key: string): string {
    const address = parsed(folder);
    return objectUrl(address.scheme, address.bucket, `${folderPrefix(address.path)}${key}`);
  }

  async readWhole(entry: BucketEntry, maxBytes: number): Promise<Buffer> {
    if (entry.sizeBytes > maxBytes) throw new InputError(`${entry.name}: is ${entry.sizeBytes} bytes, too large to be read whole`);
    const parts: Buffer[] = [];
    for await (const chunk of objectChunks(this.context, entry.address)) parts.push(chunk);
    return Buffer.concat(parts);
  }

  readRange(entry: BucketEntry, startByte: number, endByte: number): AsyncIterable<Buffer> {
    return objectChunks(this.context, entry.address, startByte, endByte);
  }

  async identity(entry: BucketEntry): Promise<string | undefined> {
    const { object } = entry.address;
    // Without an ETag (some stores give none) nothing tells the object unchanged.
    return object.etag === '' ? undefined : objectIdentity({ endpoint: this.context.identity ?? this.context.endpoint, sizeBytes: object.sizeBytes, etag: object.etag });
  }

  recordedName(entry: BucketEntry): string {
    return entry.address.url;
  }

  nothingToRead(arg: string, others: readonly string[], extensions: readonly string[]): Error {
    const found = others.length === 0 ? 'nothing is stored there' : `${others.length} other object(s) are, e.g. ${others[0]}`;
    return new InputError(`${arg}: no source objects there (looked for names ending ${[...extensions, '.zip'].join(', ')}, optionally .gz; ${found})`, [
      'Name an object itself to read it whatever its name.',
    ]);
  }

  missingName(arg: string, extensions: readonly string[]): string[] {
    throw this.nothingToRead(arg, [], extensions);
  }
}
