/**
 * A Parquet file read with hyparquet (pure JavaScript) and its compressors (snappy, gzip, zstd,
 * brotli, lz4), one row group at a time: memory is bounded by the largest row group, never the
 * file. Each row is written as one JSON object line (columnar-values.ts), so every JSON rule of
 * the project (exact integers, depth, bad text) applies to it unchanged.
 *
 * hyparquet's own conversions are replaced where they would lose what the file holds: times
 * keep their micro- and nanoseconds, a top-level DECIMAL column its exact numeral (hyparquet
 * divides into a float), strings their bad bytes as marks so their rows are rejected.
 */
import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { parquetMetadataAsync, parquetRead, type FileMetaData, type ParquetParsers } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { InputError } from '../../errors.js';
import { bigEndianInteger, decimalNumeral, ExactNumeral, isoDate, isoTime, RawJson, textOfBytes, writeRow } from './columnar-values.js';

/** The first four bytes of every Parquet file (and its last four). */
export const PARQUET_MAGIC = 'PAR1';

export function isParquet(head: Uint8Array): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x41 && head[2] === 0x52 && head[3] === 0x31;
}

const PARSERS: Partial<ParquetParsers> = {
  timestampFromMilliseconds: (count) => isoTime(BigInt(count), 'ms'),
  timestampFromMicroseconds: (count) => isoTime(BigInt(count), 'us'),
  timestampFromNanoseconds: (count) => isoTime(BigInt(count), 'ns'),
  dateFromDays: (days) => isoDate(days),
  stringFromBytes: (bytes) => (bytes === undefined || bytes === null ? bytes : textOfBytes(bytes)),
  jsonFromBytes: (bytes) => (bytes === undefined || bytes === null ? bytes : new RawJson(textOfBytes(bytes))),
};

/** An open Parquet file: its columns, its row groups' sizes, and reads of one row group. */
export interface ParquetFile {
  columns: string[];
  /** `sha256:<hex>` of the footer (the file's metadata: row groups, their places and sizes): what a resumed read checks. */
  footerDigest: string;
  /** Rows of each row group, in order. */
  rowGroupRows: number[];
  /**
   * The rows of one row group, decoded, and each as a JSON object line when asked: a row
   * group's text is made a chunk at a time, never held whole.
   */
  rowGroup(index: number): Promise<{ rows: number; line(row: number): string }>;
  close(): Promise<void>;
}

type SchemaElement = FileMetaData['schema'][number];

/**
 * Top-level DECIMAL columns are read as their unscaled integers (their annotation removed) and
 * written as exact numerals here; returns each one's scale by name.
 */
function takeDecimals(metadata: FileMetaData): Map<string, number> {
  const scales = new Map<string, number>();
  const schema = metadata.schema;
  let index = 1;
  const top = schema[0]?.num_children ?? 0;
  for (let child = 0; child < top && index < schema.length; child++) {
    const element = schema[index]! as SchemaElement & { converted_type?: string; logical_type?: { type: string } };
    const isDecimal = element.converted_type === 'DECIMAL' || element.logical_type?.type === 'DECIMAL';
    if (isDecimal && element.num_children === undefined) {
      scales.set(element.name, element.scale ?? 0);
      element.converted_type = undefined;
      element.logical_type = undefined;
    }
    index = skipSubtree(schema, index);
  }
  return scales;
}

/** The index after the element at `index` and all its descendants. */
function skipSubtree(schema: FileMetaData['schema'], index: number): number {
  let pending = 1;
  while (pending > 0 && index < schema.length) {
    pending += (schema[index]!.num_children ?? 0) - 1;
    index++;
  }
  return index;
}

function exactDecimal(value: unknown, scale: number): unknown {
  if (value === null || value === undefined) return value;
  if (value instanceof Uint8Array) return new ExactNumeral(decimalNumeral(bigEndianInteger(value), scale));
  if (typeof value === 'bigint' || typeof value === 'number') return new ExactNumeral(decimalNumeral(BigInt(value), scale));
  return value;
}

/** A Parquet file's bytes as hyparquet reads them, by ranges: a file on disk, or an object of a bucket (buckets/object-window.ts). */
export interface ParquetBytes {
  byteLength: number;
  slice(start: number, end?: number): Promise<ArrayBuffer>;
  close(): Promise<void>;
}

/**
 * The file as hyparquet reads it, by ranges. Its handle is opened at the first read and held
 * until closed: a run opens every input before staging, thousands of them in an export.
 */
function fileBuffer(path: string, byteLength: number): ParquetBytes {
  let opened: Promise<FileHandle> | undefined;
  return {
    byteLength,
    async close() {
      const handle = opened;
      opened = undefined;
      if (handle !== undefined) await (await handle).close();
    },
    async slice(start, end = byteLength) {
      opened ??= open(path, 'r');
      const handle = await opened;
      const buffer = new Uint8Array(end - start);
      let done = 0;
      while (done < buffer.length) {
        const { bytesRead } = await handle.read(buffer, done, buffer.length - done, start + done);
        if (bytesRead === 0) throw new Error(`the file ends at byte ${start + done}, before byte ${end}`);
        done += bytesRead;
      }
      return buffer.buffer;
    },
  };
}

/** Opens a Parquet file and reads its footer; InputError when it is not one hyparquet can read. */
export async function openParquet(path: string, displayName: string, sizeBytes: number): Promise<ParquetFile> {
  return openParquetBytes(fileBuffer(path, sizeBytes), displayName, sizeBytes);
}

/** Opens Parquet bytes from wherever they are read and reads their footer; InputError when they are not a Parquet file hyparquet can read. */
export async function openParquetBytes(file: ParquetBytes, displayName: string, sizeBytes: number): Promise<ParquetFile> {
  let metadata: FileMetaData;
  try {
    metadata = await parquetMetadataAsync(file, { parsers: PARSERS });
  } catch (error) {
    throw new InputError(`${displayName}: is not a Parquet file that can be read (${(error as Error).message})`);
  } finally {
    await file.close();
  }
  const footerBytes = metadata.metadata_length + 8;
  const footerDigest = `sha256:${createHash('sha256')
    .update(new Uint8Array(await file.slice(sizeBytes - footerBytes, sizeBytes)))
    .digest('hex')}`;
  await file.close();
  const decimals = takeDecimals(metadata);
  const columns = topLevelNames(metadata.schema);
  const rowGroupRows = metadata.row_groups.map((group) => Number(group.num_rows));
  const starts = rowGroupStarts(rowGroupRows);
  return {
    columns,
    footerDigest,
    rowGroupRows,
    async rowGroup(index) {
      const rowStart = starts[index]!;
      let rows: unknown[][] = [];
      try {
        await parquetRead({ file, metadata, compressors, parsers: PARSERS, utf8: false, rowStart, rowEnd: rowStart + rowGroupRows[index]!, onComplete: (read) => (rows = read) });
      } catch (error) {
        throw new InputError(`${displayName}: row group ${index + 1} cannot be read (${(error as Error).message})`);
      }
      const decimalAt = [...decimals].map(([name, scale]) => [columns.indexOf(name), scale] as const);
      return {
        rows: rows.length,
        line(row) {
          const values = rows[row]!;
          // Each row is written once: it is released as soon as its line is made.
          rows[row] = [];
          for (const [at, scale] of decimalAt) values[at] = exactDecimal(values[at], scale);
          return writeRow(columns, values);
        },
      };
    },
    close: () => file.close(),
  };
}

/** The index of each row group's first row in the file. */
export function rowGroupStarts(rowGroupRows: readonly number[]): number[] {
  const starts: number[] = [];
  let next = 0;
  for (const rows of rowGroupRows) {
    starts.push(next);
    next += rows;
  }
  return starts;
}

function topLevelNames(schema: FileMetaData['schema']): string[] {
  const names: string[] = [];
  const top = schema[0]?.num_children ?? 0;
  let index = 1;
  for (let child = 0; child < top && index < schema.length; child++) {
    names.push(schema[index]!.name);
    index = skipSubtree(schema, index);
  }
  return names;
}
