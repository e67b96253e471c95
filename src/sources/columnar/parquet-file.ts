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
import type { FileMetaData, ParquetParsers } from 'hyparquet';
import { InputError } from '../../errors.js';
import { bigEndianInteger, decimalNumeral, ExactNumeral, float32Value, isoDate, isoTime, jsonCell, pushRow, rowKeys, textOfBytes, textValue, unescapeKey } from './columnar-values.js';
import { localCell, localTimeColumns } from './local-times.js';
import { lazyParsers, settled } from './lazy-cells.js';
import type { RowGroup } from './row-group.js';
import { firstBadPage } from './parquet-page-checksums.js';
import { escapeNames, flatColumns, refuseDuplicates, takeDecimals, topLevelFloats, topLevelNames } from './parquet-schema.js';

/** The first four bytes of every Parquet file (and its last four). */
type Hyparquet = typeof import('hyparquet') & typeof import('hyparquet-compressors');
let hyparquet: Promise<Hyparquet> | undefined;
/** hyparquet and its compressors are loaded when a Parquet file is first opened: together they add about 20 MB to a process's resident memory, which a run without Parquet does not need. */
const loadHyparquet = (): Promise<Hyparquet> => (hyparquet ??= Promise.all([import('hyparquet'), import('hyparquet-compressors')]).then(([reader, codecs]) => ({ ...reader, ...codecs })));

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

/** PARSERS for a column whose cells are its rows' values: long texts decoded as their rows are written (lazy-cells.ts). */
const FLAT_COLUMN_PARSERS = lazyParsers(PARSERS);

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
  const { parquetMetadataAsync } = await loadHyparquet();
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
  escapeNames(metadata);
  const decimals = takeDecimals(metadata);
  const floats = topLevelFloats(metadata.schema);
  const columns = topLevelNames(metadata.schema);
  refuseDuplicates(columns, displayName);
  const localAt = [...localTimeColumns(metadata.schema)].map((name) => columns.indexOf(name));
  const flat = flatColumns(metadata.schema);
  const rowGroupRows = metadata.row_groups.map((group) => Number(group.num_rows));
  const starts = rowGroupStarts(rowGroupRows);
  const keys = rowKeys(columns);
  return {
    columns: columns.map(unescapeKey),
    footerDigest,
    rowGroupRows,
    async rowGroup(index) {
      const rowStart = starts[index]!;
      const rows = rowGroupRows[index]!;
      const values = await readColumns({ file, metadata, columns, flat, rowStart, rows, displayName, group: index });
      const decimalAt = [...decimals].map(([name, scale]) => [columns.indexOf(name), scale] as const);
      const floatAt = floats.map((name) => columns.indexOf(name));
      const row: unknown[] = new Array(columns.length);
      return {
        rows,
        pushLine(at, parts) {
          for (let c = 0; c < values.length; c++) {
            const column = values[c]!;
            row[c] = settled(column[at]);
            // Each cell is written once: a column of objects releases it as soon as its line is made.
            if (Array.isArray(column)) column[at] = undefined;
          }
          for (const [c, scale] of decimalAt) row[c] = exactDecimal(row[c], scale);
          for (const c of localAt) row[c] = localCell(row[c]);
          for (const c of floatAt) row[c] = float32Value(row[c]);
          pushRow(parts, keys, row);
        },
      };
    },
    close: () => file.close(),
  };
}

interface ColumnsRead {
  file: ParquetBytes;
  metadata: FileMetaData;
  columns: readonly string[];
  /** Columns whose cells are their rows' values, read with FLAT_COLUMN_PARSERS. */
  flat: ReadonlySet<string>;
  rowStart: number;
  rows: number;
  displayName: string;
  group: number;
}

/**
 * Each column of one row group, decoded one column after another: only one column's pages
 * (decompressed, and their values) are being decoded at a time, and no row is built as an
 * object or array (hyparquet's rows of a 100,000-row group held the whole group twice over).
 * A page can hold the whole row group (DuckDB writes one page per column chunk), so a row
 * group is not read in smaller slices: each slice would decompress its pages again. What is
 * held instead is made small: long texts of flat columns stay bytes until written (lazy-cells.ts).
 */
async function readColumns(read: ColumnsRead): Promise<ArrayLike<unknown>[]> {
  const { parquetRead, compressors } = await loadHyparquet();
  const out: ArrayLike<unknown>[] = [];
  for (const name of read.columns) {
    const parts: { at: number; data: ArrayLike<unknown> }[] = [];
    try {
      const file = await checkedColumn(read, name);
      await parquetRead({
        file,
        metadata: read.metadata,
        compressors,
        parsers: read.flat.has(name) ? FLAT_COLUMN_PARSERS : PARSERS,
        utf8: false,
        columns: [name],
        rowStart: read.rowStart,
        rowEnd: read.rowStart + read.rows,
        onChunk: (chunk) => parts.push({ at: chunk.rowStart - read.rowStart, data: chunk.columnData }),
      });
    } catch (error) {
      throw new InputError(`${read.displayName}: row group ${read.group + 1} cannot be read (${(error as Error).message})`);
    }
    out.push(joinParts(parts, read.rows));
  }
  return out;
}

/**
 * A top-level column's chunks in one row group, read once and their pages' checksums checked
 * (parquet-page-checksums.ts); hyparquet is then served those bytes from memory. Throws naming
 * the column and the byte of the first page whose bytes differ from their checksum.
 */
async function checkedColumn(read: ColumnsRead, name: string): Promise<ParquetBytes> {
  const chunks = read.metadata.row_groups[read.group]!.columns.flatMap((chunk) => {
    const meta = chunk.meta_data;
    if (meta === undefined || meta.path_in_schema[0] !== name) return [];
    // The chunk's first page, as hyparquet finds it (a dictionary page offset of 0 is a writer's "none").
    const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
    return [{ start, end: start + Number(meta.total_compressed_size) }];
  });
  if (chunks.length === 0) return read.file;
  const start = Math.min(...chunks.map((c) => c.start));
  const end = Math.max(...chunks.map((c) => c.end));
  if (start < 0 || end > read.file.byteLength || start >= end) return read.file;
  const held = await read.file.slice(start, end);
  const bytes = new Uint8Array(held);
  for (const chunk of chunks) {
    const bad = firstBadPage(bytes.subarray(chunk.start - start, chunk.end - start));
    if (bad !== undefined) throw new Error(`column "${unescapeKey(name)}": the page at byte ${chunk.start + bad} does not match its checksum (the file is damaged)`);
  }
  return {
    byteLength: read.file.byteLength,
    slice: async (from, to = read.file.byteLength) => {
      if (from === start && to === end) return held;
      return from >= start && to <= end ? held.slice(from - start, to - start) : read.file.slice(from, to);
    },
    close: () => read.file.close(),
  };
}

/** A column's decoded parts as one array of the row group's rows (the one part as it is, when there is one). */
function joinParts(parts: readonly { at: number; data: ArrayLike<unknown> }[], rows: number): ArrayLike<unknown> {
  if (parts.length === 1 && parts[0]!.at === 0 && parts[0]!.data.length === rows) return parts[0]!.data;
  const joined: unknown[] = new Array(rows).fill(null);
  for (const { at, data } of parts) for (let i = 0; i < data.length && at + i < rows; i++) if (at + i >= 0) joined[at + i] = data[i];
  return joined;
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
