/**
 * A prefix of a bucket read as a folder is (a vendor's layout, Heap Connect's): every key under
 * it, as a path below it, listed page by page; small objects (manifests) read as text.
 */
import { InputError } from '../errors.js';
import type { BucketContext } from './bucket-calls.js';
import { listAll } from './bucket-listing.js';
import { objectUrl, parseBucketUrl, type BucketUrl } from './bucket-url.js';
import { objectChunks } from './object-bytes.js';
import type { ObjectInfo } from './s3-client.js';

/** Most bytes of an object read as text here (a manifest): more is not a manifest. */
const MAX_TEXT_BYTES = 64 * 1024 * 1024;

export interface BucketFolder {
  /** The prefix's address, ending in `/`. */
  root: string;
  address: BucketUrl;
  /** Each object under the prefix by its path below it (`/`-separated). */
  objects: Map<string, ObjectInfo>;
}

/** The prefix an address names as a folder: `s3://bucket/heap` and `s3://bucket/heap/` are the same. */
function folderAddress(arg: string): BucketUrl {
  const address = parseBucketUrl(arg);
  if (address === undefined) throw new InputError(`${arg}: not a bucket address (s3://bucket/prefix/ or gs://bucket/prefix/)`);
  return { ...address, path: address.path === '' || address.path.endsWith('/') ? address.path : `${address.path}/` };
}

/** Lists every object under the address. */
export async function listFolder(context: BucketContext, arg: string): Promise<BucketFolder> {
  const address = folderAddress(arg);
  const root = objectUrl(address.scheme, address.bucket, address.path);
  const objects = new Map<string, ObjectInfo>();
  for (const object of await listAll(context, address, address.path)) if (!object.key.endsWith('/')) objects.set(object.key.slice(address.path.length), object);
  return { root, address, objects };
}

/** The address of a path below the folder. */
export function folderUrl(folder: BucketFolder, path: string): string {
  return `${folder.root}${path}`;
}

/** A small object of the folder as UTF-8 text. */
export async function readFolderText(context: BucketContext, folder: BucketFolder, path: string): Promise<string> {
  const object = folder.objects.get(path);
  const url = folderUrl(folder, path);
  if (object === undefined) throw new InputError(`${url}: no such object`);
  if (object.sizeBytes > MAX_TEXT_BYTES) throw new InputError(`${url}: is ${object.sizeBytes} bytes, too large to be a manifest`);
  const parts: Buffer[] = [];
  for await (const chunk of objectChunks(context, { bucket: folder.address.bucket, url, object })) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}
