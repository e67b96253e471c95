/**
 * Bucket addresses as source inputs, read like files: each object's bytes stream through the
 * same readers (plain, gzip with any number of members), never written to disk. An object is
 * recorded in the staging file under its address (`s3://bucket/key`) with its size, ETag and
 * version (in a versioned bucket), so an interrupted read of it is resumed by the next run (a
 * plain UTF-8 object by a ranged read from its last piece, others as a file's), and a changed
 * object is a changed file.
 */
import { InputError, MigrateError } from '../errors.js';
import pLimit from 'p-limit';
import { openText, type OpenOptions, type SourceInput } from '../sources/open-input.js';
import type { Clock } from '../util/clock.js';
import { BUCKET_RETRY_POLICY, type BucketContext } from './bucket-calls.js';
import { listObjects } from './bucket-listing.js';
import { folderUrl, listFolder, readFolderText } from './bucket-folder.js';
import { endpointIdentity, endpointName, resolveS3Settings, type BucketChoices } from './bucket-settings.js';
import { objectUrl, parseBucketUrl, type BucketScheme } from './bucket-url.js';
import { isZipKey, openZipObject } from './object-zip.js';
import { columnarKindOf } from '../sources/columnar/row-text.js';
import { openColumnarObject, type ObjectBegun } from './object-columnar.js';
import { objectByteSource, objectStart, rangedText, SmallObjects, type ObjectAddress } from './object-bytes.js';
import { createS3Calls } from './s3-client.js';
import { objectIdentity } from '../sources/file-identity.js';

export { isBucketUrl } from './bucket-url.js';

export interface BucketRun {
  choices: BucketChoices;
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  signal?: AbortSignal;
  notice: (text: string) => void;
  /** True for an object (its address, its identity as listed) staged before as this run would stage it: it is not opened, nor fetched. */
  unchanged?: (url: string, identity: string) => boolean;
}

/** Objects looked at at once while a run opens its inputs. */
const OPENING_CONCURRENCY = 8;

/** One client per scheme for the run; closed with the inputs. */
export class BucketSources {
  private readonly contexts = new Map<BucketScheme, BucketContext & { identity: string }>();
  private readonly small = new SmallObjects();
  /** Files the run manifests of the addresses opened list that are not there, in words. */
  readonly missing: string[] = [];
  /** Objects not opened: staged before and unchanged since, by address. */
  readonly unchanged: string[] = [];
  /** Objects a folder listed, by address. */
  private readonly listed = new Map<string, ObjectAddress>();

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

  /** The objects an address names, opened as inputs in key order. */
  async open(arg: string, extensions: readonly string[], options: OpenOptions): Promise<SourceInput[]> {
    const scheme = parseBucketUrl(arg)?.scheme ?? 's3';
    const context = this.context(scheme);
    const { address, objects, notices, missing } = await listObjects(context, arg, extensions);
    for (const notice of notices) this.run.notice(notice);
    this.missing.push(...missing);
    return this.openEach(
      objects.map((object) => ({ context, address: { bucket: address.bucket, url: objectUrl(scheme, address.bucket, object.key), object } })),
      extensions,
      options,
    );
  }

  /** Every object under a prefix, as a folder's files (a vendor's layout); each may then be opened by its address (openListed). */
  async folder(arg: string): Promise<{ root: string; paths: string[]; readText(path: string): Promise<string> }> {
    const scheme = parseBucketUrl(arg)?.scheme ?? 's3';
    const context = this.context(scheme);
    const folder = await listFolder(context, arg);
    for (const [path, object] of folder.objects) this.listed.set(folderUrl(folder, path), { bucket: folder.address.bucket, url: folderUrl(folder, path), object });
    return { root: folder.root, paths: [...folder.objects.keys()], readText: (path) => readFolderText(context, folder, path) };
  }

  /** True when `url` is an object a folder listed. */
  isListed(url: string): boolean {
    return this.listed.has(url);
  }

  /** Objects a folder listed, opened as inputs in the order given. */
  async openListed(urls: readonly string[], extensions: readonly string[], options: OpenOptions): Promise<SourceInput[]> {
    const objects = urls.map((url) => {
      const address = this.listed.get(url);
      if (address === undefined) throw new InputError(`${url}: not an object listed before`);
      return { context: this.context(parseBucketUrl(url)?.scheme ?? 's3'), address };
    });
    return this.openEach(objects, extensions, options);
  }

  private async openEach(
    objects: ReadonlyArray<{ context: BucketContext & { identity: string }; address: ObjectAddress }>,
    extensions: readonly string[],
    options: OpenOptions,
  ): Promise<SourceInput[]> {
    // Each object is looked at before any row is staged (a request each): a few at once, kept in the order given.
    const limit = pLimit(OPENING_CONCURRENCY);
    const opened = await Promise.all(
      objects.map(({ context, address }) =>
        limit(async () => {
          const { object } = address;
          const identity = objectIdentity({ endpoint: context.identity, sizeBytes: object.sizeBytes, etag: object.etag });
          if (object.etag !== '' && this.run.unchanged?.(address.url, identity) === true) {
            this.unchanged.push(address.url);
            return [];
          }
          const found = isZipKey(object.key) ? await openZipObject(context, address, extensions, options) : [await openObject(context, this.small, address, options)];
          // Opening read the object's first bytes: S3's answer gave its version, in a versioned bucket.
          const record = { url: address.url, bucket: address.bucket, key: object.key, sizeBytes: object.sizeBytes, etag: object.etag, versionId: object.versionId, endpoint: context.identity };
          return found.map((input) => ({ ...input, bucketObject: record, identity }));
        }),
      ),
    );
    return opened.flat();
  }

  close(): void {
    for (const context of this.contexts.values()) context.calls.close();
    this.contexts.clear();
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
