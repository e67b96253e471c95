import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { describe, expect, it } from 'vitest';
import { chunkRanges, rowGroupSlices } from '../../src/sources/columnar/parquet-slices.js';
import { topLevelNames } from '../../src/sources/columnar/parquet-schema.js';
import { writeParquet } from '../helpers/duckdb.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

/** Nulls, empty lists, lists of lists, records holding lists, maps, dictionary and long texts, over more rows than a slice. */
const NESTED = `SELECT
  CASE WHEN i % 7 = 0 THEN NULL ELSE i END AS n,
  i::BIGINT * 1000003 AS big,
  'tier' || (i % 4) AS tier,
  CASE WHEN i % 5 = 0 THEN NULL ELSE 'é🚀 ' || repeat('x', i % 90) END AS text,
  CASE WHEN i % 6 = 0 THEN NULL WHEN i % 6 = 1 THEN [] ELSE [i, NULL, i + 1] END AS ints,
  [[i % 3], [], NULL] AS nested,
  CASE WHEN i % 9 = 0 THEN NULL ELSE {'k': 'v' || i, 'tags': CASE WHEN i % 2 = 0 THEN NULL ELSE ['a', 'b' || i] END} END AS rec,
  MAP {'m' || (i % 3): i} AS m,
  (i / 8)::DECIMAL(12, 3) AS d,
  i % 3 = 0 AS flag
  FROM range(1200) t(i)`;

/** Every row of `path` read a slice of `sliceRows` at a time, row group after row group, as objects keyed by column. */
async function slicedRows(path: string, sliceRows: number): Promise<Array<Record<string, unknown>>> {
  const metadata = await parquetMetadataAsync(await asyncBufferFromFile(path));
  const bytes = readFileSync(path);
  const columns = topLevelNames(metadata.schema);
  const rows: Array<Record<string, unknown>> = [];
  metadata.row_groups.forEach((group, index) => {
    const chunks = chunkRanges(metadata, index).map((range) => bytes.subarray(range.start, range.end));
    const slices = rowGroupSlices(metadata, index, chunks, columns, {});
    for (let done = 0; done < Number(group.num_rows); done += sliceRows) {
      const values = slices.next(Math.min(sliceRows, Number(group.num_rows) - done));
      for (let r = 0; r < values[0]!.length; r++) rows.push(Object.fromEntries(columns.map((name, c) => [name, values[c]![r]])));
      // As the reader does once a slice's rows are written: what later slices read must stay.
      slices.release();
    }
    slices.release(true);
  });
  return rows;
}

describe('a Parquet row group read a slice of rows at a time', () => {
  it('gives the rows hyparquet reads whole, in slices of 1, 7 and 4,096 rows', async () => {
    const dir = tempDir();
    // Many pages a row group, V2 pages and rows that run on into the next page: the conformance files (small pages).
    await writeParquet(join(dir, 'v1.parquet'), NESTED, 'zstd', 2048);
    await writeParquet(join(dir, 'v2.parquet'), NESTED, 'snappy', 2048, 'V2');
    for (const name of ['v1.parquet', 'v2.parquet']) {
      const path = join(dir, name);
      const whole = await parquetReadObjects({ file: await asyncBufferFromFile(path), compressors, utf8: false });
      for (const sliceRows of [1, 7, 4096]) expect(await slicedRows(path, sliceRows), `${name} in slices of ${sliceRows}`).toEqual(whole);
    }
  });
});

/** Pages of over 1 MiB (read as they are decompressed, parquet-page-stream.ts): long texts with nulls, lists of texts with nulls and empty lists. */
const LARGE_PAGES = `SELECT
  CASE WHEN i % 5 = 0 THEN NULL ELSE 'é🚀 ' || repeat('x', 90 + i % 60) || i END AS text,
  CASE WHEN i % 97 = 0 THEN NULL WHEN i % 13 = 0 THEN [] ELSE ['a' || repeat('y', 90 + i % 30) || i, NULL, 'b'] END AS tags
  FROM range(12000) t(i)`;

describe('a Parquet row group whose pages are decompressed as they are read', () => {
  it('gives the rows hyparquet reads whole, in V1 and V2 pages', async () => {
    const dir = tempDir();
    await writeParquet(join(dir, 'v1.parquet'), LARGE_PAGES, 'zstd', 12288);
    await writeParquet(join(dir, 'v2.parquet'), LARGE_PAGES, 'zstd', 12288, 'V2');
    for (const name of ['v1.parquet', 'v2.parquet']) {
      const path = join(dir, name);
      const metadata = await parquetMetadataAsync(await asyncBufferFromFile(path));
      for (const chunk of metadata.row_groups[0]!.columns) expect(Number(chunk.meta_data!.total_uncompressed_size)).toBeGreaterThan(1024 * 1024);
      const whole = await parquetReadObjects({ file: await asyncBufferFromFile(path), compressors, utf8: false });
      // Compared as JSON text: toEqual over this many rows takes seconds.
      expect(JSON.stringify(await slicedRows(path, 1000)), name).toBe(JSON.stringify(whole));
    }
  });
});
