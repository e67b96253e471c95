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
import { startWorker } from '../../util/worker-bridge.js';
import type { SourceInput } from '../source-input.js';
import { openParquet } from './parquet-file.js';
import type { RowTextRequest } from './row-text-worker.js';
import { openRowGroups, rowText, utf8OfText, type ColumnarKind, type RowGroups } from './row-text.js';

/** A file's row groups, and what a resumed read checks the file by. */
export interface KeyedRowGroups extends RowGroups {
  kind: ColumnarKind;
  key: string;
}

/**
 * Files from this size on are decoded on a worker thread of their own (row-text-worker.ts);
 * smaller ones here, where a thread's start would weigh more than the decoding (an export can
 * be thousands of small files).
 */
const WORKER_FROM_BYTES = 1024 * 1024;

/**
 * Young generation of the decoding thread, in MB. Chosen when a row group's columns were decoded
 * whole and lived until its rows were written: a large nursery only copied them more before they
 * were promoted (200,000 rows of the Parquet benchmark: peak RSS 840 MB with V8's default, 700
 * and 581 MB with 16, 658 MB with 8, at the same CPU). Rows are now decoded a slice at a time
 * (parquet-slices.ts), which bounds the same memory more tightly; the value was not measured again.
 */
const DECODER_YOUNG_GENERATION_MB = 16;

async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

/**
 * The rows' UTF-8 bytes from row 0, decoded on a worker thread: the next batch is asked for
 * while this one is handed on, so the worker decodes while this thread stages.
 */
async function* workerBytes(kind: ColumnarKind, path: string, displayName: string, sizeBytes: number): AsyncIterable<Buffer> {
  const worker = startWorker<RowTextRequest, Buffer | null>(new URL('./row-text-worker.js', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: DECODER_YOUNG_GENERATION_MB } });
  try {
    await worker.call({ start: { kind, path, displayName, sizeBytes, fromRow: 0 } });
    let pending = worker.call({ next: true });
    for (;;) {
      // Awaited below; caught here too so that a read given up early leaves no unhandled rejection.
      pending.catch(() => {});
      const batch = await pending;
      if (batch === null) return;
      pending = worker.call({ next: true });
      // A moved buffer arrives as a Uint8Array.
      yield Buffer.from(batch.buffer, batch.byteOffset, batch.byteLength);
    }
  } finally {
    await worker.terminate();
  }
}

/** The rows' UTF-8 bytes from row 0, decoded here (small files). */
async function* localBytes(groups: RowGroups): AsyncIterable<Buffer> {
  for await (const text of rowText(groups, 0)) yield utf8OfText(text);
}

/** Opens `path` (a regular file starting with PAR1) as a source input. */
export async function openParquetInput(path: string, displayName: string, sizeBytes: number, reopen: () => Promise<SourceInput>): Promise<SourceInput> {
  const parquet = await openParquet(path, displayName, sizeBytes);
  return localInput(path, displayName, sizeBytes, reopen, { ...parquet, kind: 'parquet', key: parquet.footerDigest });
}

/**
 * Opens `path` (a regular file starting with `Obj\x01`) as a source input: its blocks are its
 * row groups. Its key is the digest of the whole file, hashed (not decoded) when opened: an Avro
 * file has no footer, and its header and blocks' sizes stay the same when a value is rewritten
 * in place, so nothing less tells a changed file from the one whose rows were staged.
 */
export async function openAvroInput(path: string, displayName: string, sizeBytes: number, reopen: () => Promise<SourceInput>): Promise<SourceInput> {
  const avro = await openRowGroups('avro', path, displayName, sizeBytes);
  const key = await fileDigest(path);
  return localInput(path, displayName, sizeBytes, reopen, { ...avro, kind: 'avro', key });
}

/** A file on disk: a new read takes its bytes from a decoding thread (large files) or from here; its fingerprint is the digest of its bytes once read. */
function localInput(path: string, displayName: string, sizeBytes: number, reopen: () => Promise<SourceInput>, groups: KeyedRowGroups): SourceInput {
  const bytes = (): AsyncIterable<Buffer> => (sizeBytes >= WORKER_FROM_BYTES ? workerBytes(groups.kind, path, displayName, sizeBytes) : localBytes(groups));
  return columnarInput({ path, displayName, sizeBytes, reopen }, groups, () => fileDigest(path), bytes);
}

/** Where a columnar source is and how it is opened again. */
export interface ColumnarPlace {
  path: string;
  displayName: string;
  sizeBytes: number;
  reopen: () => Promise<SourceInput>;
}

/**
 * A columnar file or object as a source input: its rows as JSON object lines, line N being row
 * N. `fingerprintAtEnd` is what the read is known by once read to its end; `utf8Bytes`, when
 * given, is what a new read cuts its pieces from (a resumed one reads the text from its row).
 */
export function columnarInput(place: ColumnarPlace, groups: KeyedRowGroups, fingerprintAtEnd: () => Promise<string>, utf8Bytes?: () => AsyncIterable<Buffer>): SourceInput {
  let fingerprint: string | undefined;
  /** Reads to the end, then the fingerprint; the source is closed however it ends. */
  async function* whole<T>(items: AsyncIterable<T>): AsyncIterable<T> {
    try {
      yield* items;
      fingerprint = await fingerprintAtEnd();
    } finally {
      await groups.close().catch(() => {});
    }
  }
  const text = (fromRow: number): AsyncIterable<string> => whole(rowText(groups, fromRow));
  return {
    path: place.path,
    displayName: place.displayName,
    sizeBytes: place.sizeBytes,
    compressed: false,
    encoding: 'utf-8',
    headText: '{',
    text: text(0),
    ...(utf8Bytes === undefined ? {} : { utf8Bytes: whole(utf8Bytes()) }),
    rowGroupRows: groups.rowGroupRows,
    columnar: groups.kind,
    columns: groups.columns,
    resumable: { key: groups.key, textFromLine: (line) => text(line - 1) },
    fingerprint: () => fingerprint,
    close: () => groups.close().catch(() => {}),
    reopen: place.reopen,
  };
}
