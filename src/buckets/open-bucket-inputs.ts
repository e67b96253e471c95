/**
 * Bucket addresses as source inputs, read like files: each object's bytes stream through the
 * same readers (plain, gzip with any number of members), never written to disk. An object is
 * recorded in the staging file under its address (`s3://bucket/key`) with its size, ETag and
 * version (in a versioned bucket), so an interrupted read of it is resumed by the next run (a
 * plain UTF-8 object by a ranged read from its last piece, others as a file's), and a changed
 * object is a changed file.
 */
import { InputError, MigrateError } from '../errors.js';
import { openText, type OpenOptions, type SourceInput } from '../sources/open-input.js';
import type { Clock } from '../util/clock.js';
import { BUCKET_RETRY_POLICY, type BucketContext } from './bucket-calls.js';
import { BucketPlace, type BucketEntry } from './bucket-place.js';
import { endpointIdentity, endpointName, resolveS3Settings, type BucketChoices } from './bucket-settings.js';
import { parseBucketUrl, type BucketScheme } from './bucket-url.js';
import { openZipAt } from '../sources/places/place-zip.js';
import { columnarKindOf } from '../sources/columnar/row-text.js';
import { openColumnarObject, type ObjectBegun } from './object-columnar.js';
import { objectByteSource, objectStart, rangedText, SmallObjects, type ObjectAddress } from './object-bytes.js';
import { createS3Calls } from './s3-client.js';
import type { OpenInputsOptions } from '../sources/zip-input.js';

export { isBucketUrl } from './bucket-url.js';

/** True when the object is read as a zip archive: by its name, as S3 gives no content to sniff before a read. */
function isZipKey(key: string): boolean {
  return /\.zip$/i.test(key);
}

export interface BucketRun {
  choices: BucketChoices;
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  signal?: AbortSignal;
  notice: (text: string) => void;
}

/** One client (and one Place, its listings kept) per scheme for the run; closed with the inputs. */
export class BucketSources {
  private readonly contexts = new Map<BucketScheme, BucketContext & { identity: string }>();
  private readonly places = new Map<BucketScheme, BucketPlace>();
  private readonly small = new SmallObjects();

  constructor(private readonly run: BucketRun) {}

  private context(scheme: BucketScheme): BucketContext & { identity: string } {
    let context = this.contexts.get(scheme);
    if (context === undefined) {
      const settings = resolveS3Settings(scheme, this.run.choices, this.run.env);
      context = {
        calls: createS3Calls(settings),
        clock: this.run.clock,
        policy: BUCKET_RETRY_POLICY,
        endpoint: endpointName(settings),
        identity: endpointIdentity(settings),
        signal: this.run.signal,
        onRetry: this.run.notice,
      };
      this.contexts.set(scheme, context);
    }
    return context;
  }

  /** The bucket an address is in, as a Place. */
  place(arg: string): BucketPlace {
    const scheme = parseBucketUrl(arg)?.scheme ?? 's3';
    let place = this.places.get(scheme);
    if (place === undefined) {
      place = new BucketPlace(this.context(scheme));
      this.places.set(scheme, place);
    }
    return place;
  }

  /** An object found, opened as inputs (a zip object's entries each one), recorded as listed. */
  async openEntry(entry: BucketEntry, extensions: readonly string[], options: OpenInputsOptions): Promise<SourceInput[]> {
    const { address } = entry;
    const context = this.context(parseBucketUrl(address.url)?.scheme ?? 's3');
    const { object } = address;
    const found = isZipKey(object.key) ? await openZipAt(this.place(address.url), entry, address.url, address.url, extensions, options) : [await openObject(context, this.small, address, options)];
    // Opening read the object's first bytes: S3's answer gave its version, in a versioned bucket.
    const record = { url: address.url, bucket: address.bucket, key: object.key, sizeBytes: object.sizeBytes, etag: object.etag, versionId: object.versionId, endpoint: context.identity };
    return found.map((input) => ({ ...input, bucketObject: record }));
  }

  close(): void {
    for (const context of this.contexts.values()) context.calls.close();
    this.contexts.clear();
    this.places.clear();
  }
}

async function openObject(context: BucketContext, small: SmallObjects | undefined, address: ObjectAddress, options: OpenOptions): Promise<SourceInput> {
  const { url } = address;
  try {
    // A small object is fetched whole at once, a larger one's read begun: its first bytes tell Parquet and Avro from text, as a file's do.
    const fetched = await small?.fetch(context, address);
    const started = fetched === undefined ? await objectStart(context, address, 4) : undefined;
    const kind = columnarKindOf(fetched ?? started!.head);
    if (kind !== undefined) {
      const begun: ObjectBegun = fetched !== undefined ? { type: 'fetched', bytes: fetched, release: (bytes) => small!.release(bytes) } : { type: 'started', start: started! };
      return await openColumnarObject(context, address, kind, begun, async () => openObject(context, undefined, address, options));
    }
    // The signal ends reads of streams only; an object's reads end by themselves.
    const { bomBytes, ...text } = await openText(objectByteSource(context, address, small, fetched, started?.bytes), url, { ...options, signal: undefined });
    const input: SourceInput = { path: url, displayName: url, sizeBytes: address.object.sizeBytes, ...text };
    // A gzip object's bytes at a point cannot be decompressed without those before: it is read again from its start.
    if (!text.compressed && text.encoding === 'utf-8' && address.object.etag !== '') input.rangedText = rangedText(context, address, bomBytes);
    input.reopen = async (again) => openObject(context, undefined, address, { ...options, ...again });
    return input;
  } catch (error) {
    if (error instanceof MigrateError) throw error;
    throw new InputError(`${url}: cannot be read (${(error as Error).message})`);
  }
}
