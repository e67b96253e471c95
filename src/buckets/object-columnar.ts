/**
 * Parquet and Avro objects of a bucket as source inputs, read as the same files on disk are:
 * told by their first four bytes, their rows as JSON object lines one row group (Avro block) at
 * a time, line N being row N, a resumed read starting at the row group holding its next row
 * when the object is the same (by the same key a file is checked by). Parquet is read by
 * ranges (object-window.ts), Avro streamed (object-avro.ts); every read is guarded by the ETag
 * the object was listed with.
 */
import { MigrateError } from '../errors.js';
import { avroContainerOf, isAvro } from '../sources/columnar/avro-container.js';
import { avroFileOf } from '../sources/columnar/avro-file.js';
import { isParquet, openParquetBytes } from '../sources/columnar/parquet-file.js';
import { rowText, type RowGroups } from '../sources/columnar/parquet-input.js';
import type { SourceInput } from '../sources/source-input.js';
import { withRetries, type BucketContext } from './bucket-calls.js';
import { scanAvroObject, ObjectStream } from './object-avro.js';
import type { ObjectAddress } from './object-bytes.js';
import { ObjectWindow } from './object-window.js';

export type ColumnarKind = 'parquet' | 'avro';

/** The kind told by the object's first four bytes (`head` when they were read already, else a ranged read of them). */
export async function columnarKind(context: BucketContext, address: ObjectAddress, head?: Buffer): Promise<ColumnarKind | undefined> {
  const { bucket, url, object } = address;
  if (object.sizeBytes < 4) return undefined;
  let first = head;
  if (first === undefined) {
    const answer = await withRetries(context, { type: 'read', bucket, url }, () =>
      context.calls.getObject(bucket, object.key, { startByte: 0, endByte: 4, etag: object.etag || undefined }, context.signal),
    );
    object.versionId ??= answer.versionId;
    const parts: Buffer[] = [];
    for await (const chunk of answer.body) parts.push(chunk as Buffer);
    first = Buffer.concat(parts);
  }
  return isParquet(first) ? 'parquet' : isAvro(first) ? 'avro' : undefined;
}

/** A read of the object's rows that failed because of the bucket is that failure (its exit code and hints), not a file that cannot be read. */
async function asBucketFailure<T>(window: { failure: Error | undefined }, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw window.failure instanceof MigrateError ? window.failure : error;
  }
}

/** A small object's bytes fetched whole when it was opened, and what takes them back once read. */
export interface FetchedObject {
  bytes: Buffer;
  release(bytes: Buffer): void;
}

/** A Parquet object: its footer read now, its row groups when read. */
async function parquetGroups(context: BucketContext, address: ObjectAddress, fetched: FetchedObject | undefined): Promise<RowGroups> {
  const window = new ObjectWindow(context, address, fetched?.bytes, fetched?.release);
  const parquet = await asBucketFailure(window, () => openParquetBytes(window, address.url, address.object.sizeBytes));
  return {
    kind: 'parquet',
    key: parquet.footerDigest,
    rowGroupRows: parquet.rowGroupRows,
    columns: parquet.columns,
    rowGroup: (index) => asBucketFailure(window, () => parquet.rowGroup(index)),
    close: async () => {
      window.release();
      await parquet.close();
    },
  };
}

/** An Avro object: read through once now (its blocks and digest), its blocks streamed when read. */
async function avroGroups(context: BucketContext, address: ObjectAddress, fetched: FetchedObject | undefined): Promise<RowGroups> {
  const scanned = await scanAvroObject(context, address, fetched?.bytes);
  if (fetched !== undefined) fetched.release(fetched.bytes);
  const avro = avroFileOf(avroContainerOf(scanned.metadata, scanned.blocks, address.url, new ObjectStream(context, address)), address.url);
  return { kind: 'avro', key: scanned.digest, rowGroupRows: avro.blockRecords, columns: avro.columns, rowGroup: (index) => avro.block(index), close: () => avro.close() };
}

/**
 * The object as a source input. Its fingerprint once read is its key: a Parquet object's footer
 * digest (its bytes are read by ranges, never all in a row), an Avro object's digest.
 */
export async function openColumnarObject(
  context: BucketContext,
  address: ObjectAddress,
  kind: ColumnarKind,
  fetched: FetchedObject | undefined,
  reopen: () => Promise<SourceInput>,
): Promise<SourceInput> {
  const groups = kind === 'parquet' ? await parquetGroups(context, address, fetched) : await avroGroups(context, address, fetched);
  let done = false;
  async function* text(fromRow: number): AsyncIterable<string> {
    try {
      yield* rowText(groups, fromRow);
      done = true;
    } finally {
      await groups.close().catch(() => {});
    }
  }
  return {
    path: address.url,
    displayName: address.url,
    sizeBytes: address.object.sizeBytes,
    compressed: false,
    encoding: 'utf-8',
    headText: '{',
    text: text(0),
    rowGroupRows: groups.rowGroupRows,
    columnar: kind,
    columns: groups.columns,
    resumable: { key: groups.key, textFromLine: (line) => text(line - 1) },
    fingerprint: () => (done ? groups.key : undefined),
    close: () => groups.close().catch(() => {}),
    reopen,
  };
}
