/**
 * DuckDB, an independent writer and reader of Parquet: test files are written by it (never by
 * the reader under test), and the values a test expects are read back by it.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

let connection: Promise<DuckDBConnection> | undefined;

async function duck(): Promise<DuckDBConnection> {
  connection ??= DuckDBInstance.create(':memory:').then((db) => db.connect());
  return connection;
}

export const PARQUET_CODECS = ['uncompressed', 'snappy', 'gzip', 'zstd', 'brotli', 'lz4', 'lz4_raw'] as const;

/**
 * Writes the rows of `select` (DuckDB SQL) to a Parquet file. DuckDB cuts row groups at
 * multiples of 2,048 rows. Format version V2 writes the DELTA encodings.
 */
export async function writeParquet(path: string, select: string, codec: (typeof PARQUET_CODECS)[number] = 'zstd', rowGroupRows = 2048, version: 'V1' | 'V2' = 'V1'): Promise<void> {
  await (await duck()).run(`COPY (${select}) TO '${path.replaceAll("'", "''")}' (FORMAT parquet, COMPRESSION ${codec}, ROW_GROUP_SIZE ${rowGroupRows}, PARQUET_VERSION ${version})`);
}

/** The rows of a DuckDB query, each value as DuckDB's JSON form of it (`to_json`). */
export async function queryJson(sql: string): Promise<Array<Record<string, unknown>>> {
  const reader = await (await duck()).runAndReadAll(`SELECT to_json(q)::VARCHAR AS j FROM (${sql}) q`);
  return reader.getRowObjects().map((row) => JSON.parse(String(row.j)) as Record<string, unknown>);
}
