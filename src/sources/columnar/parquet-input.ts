/**
 * A Parquet file as a source input: its rows as JSON object lines, one row group decoded at a
 * time, line N being row N of the file. Pieces are cut from that text as from any JSON-lines
 * file. A read is resumed at the row its last written piece ended on: the row groups before
 * the one holding it are not read again, and the file is known to be the same by its footer
 * (its row groups' places, sizes and statistics), not by decoding the rows before.
 */
import { createReadStream } from 'node:fs';
import { createHash } from 'node:crypto';
import type { SourceInput } from '../source-input.js';
import { openParquet, type ParquetFile } from './parquet-file.js';

/** Text handed on at a time, in UTF-16 units: about what a decoded chunk of a text file is. */
const TEXT_CHUNK_CHARS = 64 * 1024;

async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

/** The rows' text from row `fromRow` (0-based): the row groups before it are not read. */
async function* rowText(parquet: ParquetFile, fromRow: number): AsyncIterable<string> {
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
    resumable: { key: parquet.footerDigest, textFromLine: (line) => text(line - 1) },
    fingerprint: () => digest,
    close: () => parquet.close().catch(() => {}),
    reopen,
  };
}
