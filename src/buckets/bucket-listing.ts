/**
 * The objects an address names, as a folder's files are (sources/places/expand-argument.ts):
 * one key, every object under a prefix whose name the format reads, or the keys a glob
 * matches, in natural order. Where a PostHog batch export wrote a manifest, the files it lists
 * are what is read of its run: a file it lists that is missing is returned, so the run stages
 * the others and then fails naming it.
 */
import { InputError } from '../errors.js';
import { expandArgument } from '../sources/places/expand-argument.js';
import type { BucketContext } from './bucket-calls.js';
import { BucketPlace } from './bucket-place.js';
import { parseBucketUrl, type BucketUrl } from './bucket-url.js';
import type { ObjectInfo } from './s3-client.js';

export interface ListedObjects {
  address: BucketUrl;
  objects: ObjectInfo[];
  /** Objects left out or of no run, in words. */
  notices: string[];
  /** Files a run's manifest lists that are not there, in words: the run's data is incomplete. */
  missing: string[];
}

/** The objects an address names; an address that names none is an InputError. */
export async function listObjects(context: BucketContext, arg: string, extensions: readonly string[]): Promise<ListedObjects> {
  const address = parseBucketUrl(arg);
  if (address === undefined) throw new InputError(`${arg}: not a bucket address (s3://bucket/prefix/ or gs://bucket/prefix/)`);
  const { found, notices, missing } = await expandArgument(new BucketPlace(context), arg, extensions);
  return { address, objects: found.map((f) => f.entry!.address.object), notices, missing };
}
