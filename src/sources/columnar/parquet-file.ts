/**
 * A Parquet file read with hyparquet (pure JavaScript) and its compressors (snappy, gzip, zstd,
 * brotli, lz4), one row group at a time and each row group a slice of rows at a time
 * (parquet-slices.ts): what is held is a row group's compressed bytes, each column's current
 * page, and one slice's values, never a whole row group's values nor the file. Each row is
 * written as one JSON object line (columnar-values.ts), so every JSON rule of the project
 * (exact integers, depth, bad text) applies to it unchanged.
 *
 * hyparquet's own conversions are replaced where they would lose what the file holds: times
 * keep their micro- and nanoseconds, a top-level DECIMAL column its exact numeral (hyparquet
 * divides into a float), a FLOAT at any depth its float32 numeral (parquet-floats.ts), strings
 * their bad bytes as marks so their rows are rejected.
 */
import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import type { FileMetaData, ParquetParsers } from 'hyparquet';
import { InputError } from '../../errors.js';
import { bigEndianInteger, decimalNumeral, ExactNumeral, isoDate, isoTime, jsonCell, pushRow, rowKeys, textOfBytes, textValue, unescapeKey } from './columnar-values.js';
import { localCell, localTimeColumns } from './local-times.js';
import type { ChunkRange, RowGroupSlices } from './parquet-slices.js';
import type { RowGroup } from './row-group.js';
import { firstBadPage } from './parquet-page-checksums.js';
import { floatFixes } from './parquet-floats.js';
import { escapeNames, refuseDuplicates, takeDecimals, topLevelNames } from './parquet-schema.js';

type Readers = Pick<typeof import('hyparquet'), 'parquetMetadataAsync'> & typeof import('./parquet-slices.js');
let readers: Promise<Readers> | undefined;
/**
 * hyparquet, its compressors and the page readers built on them are loaded when a Parquet file is
 * first opened: together they add about 20 MB to a process's resident memory, which a run
 * without Parquet does not need.
 */
const loadReaders = (): Promise<Readers> =>
  (readers ??= Promise.all([import('hyparquet'), import('./parquet-slices.js')]).then(([reader, slices]) => ({ parquetMetadataAsync: reader.parquetMetadataAsync, ...slices })));

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
  stringFromBytes: (bytes) => (bytes === undefined || bytes === null ? bytes : textValue(textOfBytes(bytes))),
  jsonFromBytes: (bytes) => (bytes === undefined || bytes === null ? bytes : jsonCell(textOfBytes(bytes))),
};

/** An open Parquet file: its columns, its row groups' sizes, and reads of one row group. */
export interface ParquetFile {
  columns: string[];
  /** `sha256:<hex>` of the footer (the file's metadata: row groups, their places and sizes): what a resumed read checks. */
  footerDigest: string;
  /** Rows of each row group, in order. */
  rowGroupRows: number[];
  /**
   * The rows of one row group, decoded, and each pushed as a JSON object line when asked: a
   * row group's text is made a chunk at a time, never held whole.
   */
  rowGroup(index: number): Promise<RowGroup>;
  close(): Promise<void>;
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
    metadata = await (await loadReaders()).parquetMetadataAsync(file, { parsers: PARSERS });
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
  escapeNames(metadata);
  const decimals = takeDecimals(metadata);
  const floats = floatFixes(metadata.schema);
  const columns = topLevelNames(metadata.schema);
  refuseDuplicates(columns, displayName);
  const localAt = [...localTimeColumns(metadata.schema)].map((name) => columns.indexOf(name));
  const rowGroupRows = metadata.row_groups.map((group) => Number(group.num_rows));
  const keys = rowKeys(columns);
  return {
    columns: columns.map(unescapeKey),
    footerDigest,
    rowGroupRows,
    async rowGroup(index) {
      const rows = rowGroupRows[index]!;
      const slices = await readSlices({ file, metadata, columns, displayName, group: index });
      const decimalAt = [...decimals].map(([name, scale]) => [columns.indexOf(name), scale] as const);
      const floatAt = [...floats].map(([name, fix]) => [columns.indexOf(name), fix] as const);
      const row: unknown[] = new Array(columns.length);
      return {
        rows,
        pushLine(at, parts) {
          const values = slices.valuesAt(at);
          for (let c = 0; c < values.length; c++) row[c] = values[c]![at - slices.first];
          for (const [c, scale] of decimalAt) row[c] = exactDecimal(row[c], scale);
          for (const c of localAt) row[c] = localCell(row[c]);
          for (const [c, fix] of floatAt) row[c] = fix(row[c]);
          pushRow(parts, keys, row);
          slices.written(at);
        },
      };
    },
    close: () => file.close(),
  };
}

interface SlicesRead {
  file: ParquetBytes;
  metadata: FileMetaData;
  columns: readonly string[];
  displayName: string;
  group: number;
}

/**
 * Rows decoded at a time across all columns of a row group (parquet-slices.ts). Decoding the
 * benchmark's 1M-row file alone (docs/performance.md, "Parquet"), pages whole: peak RSS 167 MB
 * at 256 rows, 173 MB at 1,024, 223 MB at 4,096, 284 MB at 16,384, at the same CPU. With large
 * zstd pages streamed, the whole export peaked at 327 MB at 256 rows against 363 MB at 1,024:
 * a slice's values outlive several of the young generation's collections and are promoted,
 * then wait for a full collection.
 */
const SLICE_ROWS = 256;

/** A row group's current slice of rows: the values of each column, from row `first` of the group. */
interface HeldSlice {
  first: number;
  /** The slice holding row `at` (rows are asked for in order; a later slice is decoded, earlier ones let go). */
  valuesAt(at: number): unknown[][];
  /** Row `at` is written: at a slice's last row the pages it read to their end are freed, at the group's last all of them. */
  written(at: number): void;
}

/**
 * One row group read a slice of rows at a time (parquet-slices.ts): its column chunks' bytes
 * are read at once, their pages' checksums checked, and its first slice decoded here, so a
 * damaged chunk is told before any of its rows. Throws InputError naming the row group.
 */
async function readSlices(read: SlicesRead): Promise<HeldSlice> {
  const cannotRead = (error: unknown): InputError => new InputError(`${read.displayName}: row group ${read.group + 1} cannot be read (${(error as Error).message})`);
  const rows = Number(read.metadata.row_groups[read.group]!.num_rows);
  let slices: RowGroupSlices;
  try {
    const { chunkRanges, rowGroupSlices } = await loadReaders();
    const ranges = chunkRanges(read.metadata, read.group);
    slices = rowGroupSlices(read.metadata, read.group, await checkedChunks(read, ranges), read.columns, PARSERS);
  } catch (error) {
    throw cannotRead(error);
  }
  let end = 0;
  let values: unknown[][] = [];
  const held: HeldSlice = {
    first: 0,
    valuesAt(at) {
      while (at >= end && end < rows) {
        held.first = end;
        values = [];
        try {
          values = slices.next(Math.min(SLICE_ROWS, rows - end));
        } catch (error) {
          throw cannotRead(error);
        }
        end += Math.min(SLICE_ROWS, rows - end);
      }
      return values;
    },
    written(at) {
      if (at === rows - 1) slices.release(true);
      else if (at === end - 1) slices.release();
    },
  };
  held.valuesAt(0);
  return held;
}

/**
 * The row group's column chunks, read in one range and their pages' checksums checked
 * (parquet-page-checksums.ts). Throws naming the column and the byte of the first page whose
 * bytes differ from their checksum.
 */
async function checkedChunks(read: SlicesRead, ranges: readonly ChunkRange[]): Promise<Uint8Array[]> {
  if (ranges.length === 0) return [];
  const start = Math.min(...ranges.map((c) => c.start));
  const end = Math.max(...ranges.map((c) => c.end));
  if (start < 0 || end > read.file.byteLength || start > end) throw new Error(`its column chunks' bytes ${start} to ${end} are not in the file`);
  const bytes = new Uint8Array(await read.file.slice(start, end));
  return ranges.map((chunk) => {
    const held = bytes.subarray(chunk.start - start, chunk.end - start);
    const bad = firstBadPage(held);
    if (bad !== undefined) throw new Error(`column "${unescapeKey(chunk.column)}": the page at byte ${chunk.start + bad} does not match its checksum (the file is damaged)`);
    return held;
  });
}
