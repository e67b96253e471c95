/**
 * A Parquet file as a source input: its rows as JSON object lines, one row group decoded at a
 * time, line N being row N of the file. Pieces are cut from that text as from any JSON-lines
 * file; a read is resumed at the row its last written piece ended on (see docs/sources.md).
 */
import { createReadStream } from 'node:fs';
import { createHash } from 'node:crypto';
import type { SourceInput } from '../open-input.js';
import { openParquet, type ParquetFile } from './parquet-file.js';

/** Text handed on at a time, in UTF-16 units: about what a decoded chunk of a text file is. */
const TEXT_CHUNK_CHARS = 64 * 1024;

async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

async function* rowText(parquet: ParquetFile): AsyncIterable<string> {
  for (let group = 0; group < parquet.rowGroupRows.length; group++) {
    const lines = await parquet.rowGroupLines(group);
    let chunk = '';
    for (const line of lines) {
      chunk += line + '\n';
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
  async function* text(): AsyncIterable<string> {
    try {
      yield* rowText(parquet);
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
    text: text(),
    rowGroupRows: parquet.rowGroupRows,
    fingerprint: () => digest,
    close: () => parquet.close().catch(() => {}),
    reopen,
  };
}
