/**
 * Opens a source file as a stream of decoded text: gzip is detected by its magic bytes (not the
 * name), a BOM is left to the readers, and the file's SHA-256 is computed on the way through.
 * Files that cannot be a source (missing, a directory, binary, not UTF-8) fail before any row
 * is read, so nothing from them is half-staged.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pipeline, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { InputError } from '../errors.js';

export interface SourceInput {
  /** Absolute path. */
  path: string;
  displayName: string;
  sizeBytes: number;
  compressed: boolean;
  /** Decoded text, in chunks of about `chunkBytes`. */
  text: AsyncIterable<string>;
  /** `sha256:<hex>` of the file's bytes; available once `text` has been read to the end. */
  fingerprint(): string | undefined;
  /** Releases what the input holds open (a zip archive); called once staging is over. */
  close?(): Promise<void>;
}

/**
 * Read size per chunk, in bytes: large enough that per-chunk overhead vanishes, small enough
 * that its text stays out of V8's large-object space (strings over 128 KiB), which only a full
 * collection empties.
 */
const CHUNK_BYTES = 64 * 1024;
const SNIFF_BYTES = 64 * 1024;

/** Opens the raw bytes of a source from the start: a file, or one entry of a zip archive. */
export type ByteSource = () => Promise<NodeJS.ReadableStream>;

/** The first `bytes` bytes of a stream (fewer when it is shorter); the stream is then closed. */
async function readHead(open: ByteSource, bytes: number): Promise<{ head: Buffer; truncated: boolean }> {
  const stream = await open();
  const parts: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream) {
      parts.push(chunk as Buffer);
      length += (chunk as Buffer).length;
      if (length > bytes) break;
    }
  } finally {
    (stream as unknown as { destroy?: () => void }).destroy?.();
  }
  return { head: Buffer.concat(parts).subarray(0, bytes), truncated: length > bytes };
}

async function statFile(path: string, displayName: string): Promise<number> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new InputError(`${displayName}: is a directory, not a file`);
    if (!info.isFile()) throw new InputError(`${displayName}: is not a regular file`);
    return info.size;
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new InputError(`${displayName}: no such file`);
    if (code === 'EACCES') throw new InputError(`${displayName}: permission denied`);
    throw new InputError(`${displayName}: cannot be read (${code ?? (error as Error).message})`);
  }
}

export function isGzip(head: Buffer): boolean {
  return head.length >= 3 && head[0] === 0x1f && head[1] === 0x8b && head[2] === 0x08;
}

/** True when the bytes start like a zip archive (a local file header or an empty archive). */
export function isZip(head: Buffer): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6));
}

/** Rejects content that is not text: NUL bytes or invalid UTF-8 in the first 64 KiB. */
function checkText(sample: Buffer, displayName: string, truncated: boolean): void {
  if (isZip(sample)) throw new InputError(`${displayName}: is a zip archive; unzip it first`);
  if (sample.includes(0)) throw new InputError(`${displayName}: looks like a binary file (it contains NUL bytes), not text`);
  // A multi-byte character may be cut at the end of the sample: only test whole text.
  const whole = truncated ? sample.subarray(0, Math.max(0, sample.length - 4)) : sample;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(whole);
  } catch {
    throw new InputError(`${displayName}: is not UTF-8 text (convert it, e.g. iconv -f latin1 -t utf-8)`);
  }
}

async function* decode(open: ByteSource, gzip: boolean, hash: ReturnType<typeof createHash>, displayName: string): AsyncIterable<string> {
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  const decoder = new TextDecoder('utf-8');
  try {
    const streams: Array<NodeJS.ReadableStream | NodeJS.WritableStream> = [await open(), tap];
    if (gzip) streams.push(createGunzip({ chunkSize: CHUNK_BYTES }));
    // pipeline destroys the last stream with any earlier stream's error, so the loop sees it.
    const bytes = pipeline(streams, () => {}) as unknown as AsyncIterable<Buffer>;
    for await (const chunk of bytes) {
      const text = decoder.decode(chunk, { stream: true });
      if (text.length > 0) yield text;
    }
  } catch (error) {
    throw new InputError(`${displayName}: reading failed part-way (${(error as Error).message})`);
  }
  const tail = decoder.decode();
  if (tail.length > 0) yield tail;
}

/** First decompressed bytes of gzip content, for the text check. */
async function gzipHead(open: ByteSource, displayName: string): Promise<{ head: Buffer; truncated: boolean }> {
  const gunzipped: ByteSource = async () => pipeline(await open(), createGunzip(), () => {});
  try {
    return await readHead(gunzipped, SNIFF_BYTES);
  } catch (error) {
    throw new InputError(`${displayName}: is not a valid gzip file (${(error as Error).message})`);
  }
}

/** What every source gives once its bytes are known to be text. */
export type TextInput = Pick<SourceInput, 'compressed' | 'text' | 'fingerprint'>;

/**
 * Checks bytes and returns them as text: gzip recognised by its magic bytes, binary and
 * non-UTF-8 content refused before any row is read. Shared by files and zip entries.
 */
export async function openText(open: ByteSource, displayName: string): Promise<TextInput> {
  const { head, truncated } = await readHead(open, SNIFF_BYTES);
  const compressed = isGzip(head);
  const sniff = compressed ? await gzipHead(open, displayName) : { head, truncated };
  checkText(sniff.head, displayName, sniff.truncated);
  const hash = createHash('sha256');
  let done = false;
  async function* text(): AsyncIterable<string> {
    yield* decode(open, compressed, hash, displayName);
    done = true;
  }
  let digest: string | undefined;
  return {
    compressed,
    text: text(),
    fingerprint: () => (done ? (digest ??= `sha256:${hash.digest('hex')}`) : undefined),
  };
}

/** Checks a file and returns it as text; throws InputError when it cannot be a source. */
export async function openSourceInput(file: string): Promise<SourceInput> {
  const path = resolve(file);
  const sizeBytes = await statFile(path, file);
  const open: ByteSource = async () => createReadStream(path, { highWaterMark: CHUNK_BYTES });
  return { path, displayName: file, sizeBytes, ...(await openText(open, file)) };
}
