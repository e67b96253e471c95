/**
 * A Parquet or Avro file as a source input: its rows as JSON object lines, one row group (an
 * Avro block) decoded at a time, line N being row N of the file. Pieces are cut from that text as from any JSON-lines
 * file. A read is resumed at the row its last written piece ended on: the row groups before
 * the one holding it are not read again, and the file is known to be the same by its footer
 * (its row groups' places, sizes and statistics; an Avro file's header and blocks' counts and
 * sizes), not by decoding the rows before.
 */
import { createReadStream } from 'node:fs';
import { createHash } from 'node:crypto';
import type { SourceInput } from '../source-input.js';
import { openAvro } from './avro-file.js';
import { openParquet } from './parquet-file.js';

/** A file's rows in groups (Parquet row groups, Avro blocks), each decoded when asked. */
export interface RowGroups {
  kind: 'parquet' | 'avro';
  /** What a resumed read checks the file by. */
  key: string;
  rowGroupRows: number[];
  columns: string[];
  rowGroup(index: number): Promise<{ rows: number; line(row: number): string }>;
  close(): Promise<void>;
}

/** Text handed on at a time, in UTF-16 units: about what a decoded chunk of a text file is. */
const TEXT_CHUNK_CHARS = 64 * 1024;

async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

/** The rows' text from row `fromRow` (0-based): the row groups before it are not read. */
export async function* rowText(parquet: RowGroups, fromRow: number): AsyncIterable<string> {
  let first = 0;
  for (let group = 0; group < parquet.rowGroupRows.length; group++) {
    const rows = parquet.rowGroupRows[group]!;
    first += rows;
    if (first <= fromRow) continue;
    const decoded = await parquet.rowGroup(group);
    let chunk = '';
    for (let row = Math.max(0, fromRow - (first - rows)); row < decoded.rows; row++) {
      chunk += decoded.line(row) + '\n';
      if (chunk.length >= TEXT_CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk.length > 0) yield chunk;
  }
}

/** Opens `path` (a regular file starting with PAR1) as a source input. */
export async function openParquetInput(path: string, displayName: string, sizeBytes: number, reopen: () => Promise<SourceInput>): Promise<SourceInput> {
  const parquet = await openParquet(path, displayName, sizeBytes);
  return rowGroupsInput(path, displayName, sizeBytes, reopen, { ...parquet, kind: 'parquet', key: parquet.footerDigest });
}

/**
 * Opens `path` (a regular file starting with `Obj\x01`) as a source input: its blocks are its
 * row groups. Its key is the digest of the whole file, hashed (not decoded) when opened: an Avro
 * file has no footer, and its header and blocks' sizes stay the same when a value is rewritten
 * in place, so nothing less tells a changed file from the one whose rows were staged.
 */
export async function openAvroInput(path: string, displayName: string, sizeBytes: number, reopen: () => Promise<SourceInput>): Promise<SourceInput> {
  const avro = await openAvro(path, displayName, sizeBytes);
  const key = await fileDigest(path);
  return rowGroupsInput(path, displayName, sizeBytes, reopen, {
    kind: 'avro',
    key,
    rowGroupRows: avro.blockRecords,
    columns: avro.columns,
    rowGroup: (index) => avro.block(index),
    close: () => avro.close(),
  });
}

function rowGroupsInput(path: string, displayName: string, sizeBytes: number, reopen: () => Promise<SourceInput>, parquet: RowGroups): SourceInput {
  let digest: string | undefined;
  async function* text(fromRow: number): AsyncIterable<string> {
    try {
      yield* rowText(parquet, fromRow);
      digest = await fileDigest(path);
    } finally {
      await parquet.close().catch(() => {});
    }
  }
  return {
    path,
    displayName,
    sizeBytes,
    compressed: false,
    encoding: 'utf-8',
    headText: '{',
    text: text(0),
    rowGroupRows: parquet.rowGroupRows,
    columnar: parquet.kind,
    columns: parquet.columns,
    resumable: { key: parquet.key, textFromLine: (line) => text(line - 1) },
    fingerprint: () => digest,
    close: () => parquet.close().catch(() => {}),
    reopen,
  };
}
