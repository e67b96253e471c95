/**
 * A columnar file's rows as JSON-lines text, from a given row: the row groups (Avro blocks)
 * before the one holding it are not read, and the rest are decoded one at a time. Runs on the
 * thread that reads the file (row-text-worker.ts for large files, parquet-input.ts for small).
 */
import { isWellFormedText } from '../invalid-text.js';
import { isAvro, openAvro, type AvroFile } from './avro-file.js';
import { isParquet, openParquet } from './parquet-file.js';
import type { RowGroup } from './row-group.js';

export type ColumnarKind = 'parquet' | 'avro';

/** Parquet or Avro, told by the first four bytes of a file or object (PostHog's `.parquet.zst` names are such files, not compressed ones). */
export function columnarKindOf(head: Uint8Array): ColumnarKind | undefined {
  return isParquet(head) ? 'parquet' : isAvro(head) ? 'avro' : undefined;
}

/** A file's rows in groups (Parquet row groups, Avro blocks), each decoded when asked. */
export interface RowGroups {
  rowGroupRows: number[];
  /** The top-level column names, as the file's schema gives them. */
  columns: string[];
  rowGroup(index: number): Promise<RowGroup>;
  close(): Promise<void>;
}

/** Text handed on at a time, in UTF-16 units: about what a decoded chunk of a text file is. */
export const TEXT_CHUNK_CHARS = 64 * 1024;

/** UTF-8 bytes that were not valid are marked U+DC80..U+DCFF (text-decoder.ts): the byte is U+DC00 less. */
const MARK_FIRST = 0xdc80;
const MARK_LAST = 0xdcff;

/**
 * Text as UTF-8 bytes in a buffer of its own (never a slice of Node's shared pool: it may be
 * moved to another thread). A marked bad byte (a lone surrogate columnar-values.ts left in a JSON
 * column's raw text) is written back as the byte it marks, so the reader decoding these bytes
 * marks it again, exactly as when it read the text.
 */
export function utf8OfText(text: string): Buffer {
  if (isWellFormedText(text)) {
    const out = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
    out.write(text);
    return out;
  }
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < MARK_FIRST || code > MARK_LAST) continue;
    const pairedLow = i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff;
    if (pairedLow) continue;
    parts.push(Buffer.from(text.slice(from, i)), Buffer.from([code - 0xdc00]));
    from = i + 1;
  }
  parts.push(Buffer.from(text.slice(from)));
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const out = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (const part of parts) at += part.copy(out, at);
  return out;
}

/**
 * Text encoded at a time, in UTF-16 units: below the size at which V8 keeps a string (a
 * two-byte one: a line with one character past Latin-1) in its large-object space, which only a
 * full collection empties. A batch of chunks joined into one string filled that space with
 * hundreds of MB per row group between collections.
 */
const ENCODE_CHARS = 16 * 1024;

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/**
 * Appends the UTF-8 of `parts` joined (as utf8OfText gives it) to `out`, in buffers of about
 * ENCODE_CHARS units, each cut between parts and never after a high surrogate, so no pair is
 * cut and the bytes are those of the joined text. Returns the text's length in UTF-16 units.
 */
export function utf8OfParts(parts: readonly string[], out: Buffer[]): number {
  let chars = 0;
  let from = 0;
  let pending = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    pending += part.length;
    const last = i === parts.length - 1;
    if (!last && (pending < ENCODE_CHARS || (part.length > 0 && isHighSurrogate(part.charCodeAt(part.length - 1))))) continue;
    out.push(utf8OfText(from === 0 && last ? parts.join('') : parts.slice(from, i + 1).join('')));
    chars += pending;
    from = i + 1;
    pending = 0;
  }
  return chars;
}

/** Opens a file's row groups (its Avro blocks). */
export async function openRowGroups(kind: ColumnarKind, path: string, displayName: string, sizeBytes: number): Promise<RowGroups & { footerDigest?: string }> {
  if (kind === 'parquet') return openParquet(path, displayName, sizeBytes);
  return avroRowGroups(await openAvro(path, displayName, sizeBytes));
}

/** An Avro file's blocks as its row groups. */
export function avroRowGroups(avro: AvroFile): RowGroups {
  return { rowGroupRows: avro.blockRecords, columns: avro.columns, rowGroup: (index) => avro.block(index), close: () => avro.close() };
}

/**
 * The rows' text from row `fromRow` (0-based). A chunk is its lines' flat pieces joined once
 * (see RowGroup.pushLine).
 */
export async function* rowText(groups: RowGroups, fromRow: number): AsyncIterable<string> {
  for await (const parts of rowTextParts(groups, fromRow)) yield parts.join('');
}

/**
 * The rows' text from row `fromRow` (0-based) as chunks of whole lines, each its lines' flat
 * pieces, not joined: a chunk of at least TEXT_CHUNK_CHARS (the last of a row group may be
 * shorter). A reader that encodes them need never make one string of the chunk (row-text-worker.ts).
 */
export async function* rowTextParts(groups: RowGroups, fromRow: number): AsyncIterable<string[]> {
  let first = 0;
  for (let group = 0; group < groups.rowGroupRows.length; group++) {
    const rows = groups.rowGroupRows[group]!;
    first += rows;
    if (first <= fromRow) continue;
    let decoded: RowGroup | undefined = await groups.rowGroup(group);
    let parts: string[] = [];
    let chars = 0;
    for (let row = Math.max(0, fromRow - (first - rows)); row < decoded.rows; row++) {
      const from = parts.length;
      decoded.pushLine(row, parts);
      parts.push('\n');
      for (let i = from; i < parts.length; i++) chars += parts[i]!.length;
      if (chars >= TEXT_CHUNK_CHARS) {
        yield parts;
        parts = [];
        chars = 0;
      }
    }
    // Let go of the group before the next is decoded (a suspended generator may keep what its frame held).
    decoded = undefined;
    if (chars > 0) yield parts;
  }
}
