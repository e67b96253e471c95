/**
 * Parquet and Avro objects of a bucket as source inputs, read as the same files on disk are:
 * told by their first four bytes, their rows as JSON object lines one row group (Avro block) at
 * a time, line N being row N, a resumed read starting at the row group holding its next row
 * when the object is the same (by the same key a file is checked by). Parquet is read by
 * ranges (object-window.ts), Avro streamed (object-avro.ts); every read is guarded by the ETag
 * the object was listed with.
 */
import { MigrateError } from '../errors.js';
import { avroContainerOf } from '../sources/columnar/avro-container.js';
import { avroFileOf } from '../sources/columnar/avro-file.js';
import { openParquetBytes } from '../sources/columnar/parquet-file.js';
import { columnarInput, type KeyedRowGroups } from '../sources/columnar/parquet-input.js';
import { avroRowGroups, type ColumnarKind } from '../sources/columnar/row-text.js';
import type { SourceInput } from '../sources/source-input.js';
import type { BucketContext } from './bucket-calls.js';
import { scanAvroObject, ObjectStream } from './object-avro.js';
import type { ObjectAddress, ObjectStart } from './object-bytes.js';
import { ObjectWindow } from './object-window.js';

/** A read of the object's rows that failed because of the bucket is that failure (its exit code and hints), not a file that cannot be read. */
async function asBucketFailure<T>(window: { failure: Error | undefined }, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw window.failure instanceof MigrateError ? window.failure : error;
  }
}

/**
 * How the object was begun: a small object's bytes fetched whole (and what takes them back once
 * read), or a read from its start whose head was looked at (closed, or read on by Avro's scan).
 */
export type ObjectBegun = { type: 'fetched'; bytes: Buffer; release(bytes: Buffer): void } | { type: 'started'; start: ObjectStart };

/** A Parquet object: its footer read now, its row groups when read. */
async function parquetGroups(context: BucketContext, address: ObjectAddress, begun: ObjectBegun): Promise<KeyedRowGroups> {
  // Parquet is read from its end: a read begun at its start is let go.
  if (begun.type === 'started') await begun.start.close();
  const fetched = begun.type === 'fetched' ? begun : undefined;
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
async function avroGroups(context: BucketContext, address: ObjectAddress, begun: ObjectBegun): Promise<KeyedRowGroups> {
  const scanned = await scanAvroObject(address, begun.type === 'fetched' ? [begun.bytes] : begun.start.bytes);
  if (begun.type === 'fetched') begun.release(begun.bytes);
  const avro = avroFileOf(avroContainerOf(scanned.metadata, scanned.blocks, address.url, new ObjectStream(context, address)), address.url);
  return { ...avroRowGroups(avro), kind: 'avro', key: scanned.digest };
}

/**
 * The object as a source input. Its fingerprint once read is its key: a Parquet object's footer
 * digest (its bytes are read by ranges, never all in a row), an Avro object's digest.
 */
export async function openColumnarObject(context: BucketContext, address: ObjectAddress, kind: ColumnarKind, begun: ObjectBegun, reopen: () => Promise<SourceInput>): Promise<SourceInput> {
  const groups = kind === 'parquet' ? await parquetGroups(context, address, begun) : await avroGroups(context, address, begun);
  return columnarInput({ path: address.url, displayName: address.url, sizeBytes: address.object.sizeBytes, reopen }, groups, async () => groups.key);
}
