/**
 * A source opened as text: a file, a zip entry, a pipe or FIFO (`<(zcat big.csv.gz)`), or
 * standard input (`-`). Gzip is recognised by its magic bytes, the encoding by a byte-order mark
 * or --encoding (UTF-8 otherwise), and binary content refused before any row is read. Bytes that
 * are not valid in the encoding do not refuse the file: they mark their rows (see
 * text-decoder.ts), which are rejected one by one with their lines.
 */
import { constants, createReadStream, open as openCallback } from 'node:fs';
import { open as openFile, stat } from 'node:fs/promises';
import { Socket } from 'node:net';
import { promisify } from 'node:util';
import { resolve } from 'node:path';
import { InputError, InterruptedError, MigrateError } from '../errors.js';
import { CHUNK_BYTES, isZip, readByteHead, unlessAborted, type ByteHead, type ByteSource } from './byte-head.js';
import { isParquet } from './columnar/parquet-file.js';
import { openAvroInput, openParquetInput } from './columnar/parquet-input.js';
import { isAvro } from './columnar/avro-file.js';
import { columnarKindOf, type ColumnarKind } from './columnar/row-text.js';
import type { OpenOptions, SourceInput } from './source-input.js';
import { byteOrderMark, createChunkDecoder, isAsciiCompatible } from './text-decoder.js';
import { standardStreams } from '../util/standard-streams.js';

export { isGzip, isZip, type ByteSource } from './byte-head.js';
export type { BucketObjectRecord, OpenOptions, SourceInput } from './source-input.js';

const openFd = promisify(openCallback);

/** What every source gives once its bytes are known to be text. */
export type TextInput = Pick<SourceInput, 'compressed' | 'text' | 'utf8Bytes' | 'fingerprint' | 'encoding' | 'headText'> & {
  /** The byte-order mark's length (0 without one): where the text starts in the content. */
  bomBytes: number;
  close(): Promise<void>;
};

/** Characters of a source's first text kept until it is read: every input of a run keeps its own. */
export const HEAD_TEXT_CHARS = 16 * 1024;

/**
 * The start of a text up to the end of its first line that is not blank (a CSV header, the
 * first JSON line or an array's `[`), at most HEAD_TEXT_CHARS: what is looked at before reading.
 */
function firstLines(text: string): string {
  const first = text.search(/[^\s\ufeff]/);
  if (first === -1) return text.slice(0, HEAD_TEXT_CHARS);
  const end = text.slice(first).search(/[\r\n]/);
  return text.slice(0, Math.min(end === -1 ? text.length : first + end + 1, HEAD_TEXT_CHARS));
}

/** The encoding to decode with, and the byte-order mark's length; refuses content that is not text. */
function textEncoding(peeked: ByteHead, displayName: string, options: OpenOptions): { encoding: string; bom: number } {
  const { head } = peeked;
  if (isZip(head)) throw new InputError(`${displayName}: is a zip archive; unzip it first`);
  // Regular files and bucket objects starting so are read as Parquet before this; a Parquet stream or archive entry cannot be (it is read from its end).
  const columnar = isParquet(head) ? 'Parquet' : isAvro(head) ? 'Avro' : undefined;
  if (columnar !== undefined && peeked.compressed) {
    // Parquet and Avro are read from their ends and by ranges, which a gzip stream cannot give: the file has to be unpacked first.
    throw new InputError(`${displayName}: is a gzipped ${columnar} file, which cannot be read compressed: unpack it first (gunzip ${displayName.replace(/.*\//, '')}) and read the ${columnar} file`);
  }
  if (columnar !== undefined)
    throw new InputError(
      `${displayName}: is ${columnar === 'Avro' ? 'an' : 'a'} ${columnar} file, which is read only as a file on disk or an object of a bucket (not from a zip archive, a pipe or standard input)`,
    );
  const bom = byteOrderMark(head);
  const encoding = bom?.encoding ?? options.encoding ?? 'utf-8';
  if (isAsciiCompatible(encoding) && head.includes(0)) {
    throw new InputError(`${displayName}: looks like a binary file (it contains NUL bytes), not text`, ['If it is UTF-16 text without a byte-order mark, pass --encoding utf-16le (or utf-16be).']);
  }
  return { encoding, bom: bom?.bytes ?? 0 };
}

function interrupted(displayName: string): InterruptedError {
  return new InterruptedError(`interrupted while reading ${displayName}; nothing from it was staged`, ['Run the same command again: files already staged are recognised.']);
}

/** The content decoded chunk by chunk; a wait for bytes ends when the signal aborts. */
async function* decodeText(peeked: ByteHead, encoding: string, bom: number, displayName: string, signal: AbortSignal | undefined): AsyncIterable<string> {
  const decoder = createChunkDecoder(encoding);
  for await (const chunk of contentBytes(peeked, bom, displayName, signal)) {
    const text = decoder.decode(chunk);
    if (text.length > 0) yield text;
  }
  const tail = decoder.end();
  if (tail.length > 0) yield tail;
}

/** The content's bytes, the byte-order mark skipped; a wait for bytes ends when the signal aborts. */
async function* contentBytes(peeked: ByteHead, bom: number, displayName: string, signal: AbortSignal | undefined): AsyncIterable<Buffer> {
  const iterator = peeked.bytes[Symbol.asyncIterator]();
  let skip = bom;
  try {
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await unlessAborted(iterator.next(), signal);
      } catch (error) {
        if (signal?.aborted) throw interrupted(displayName);
        throw new InputError(`${displayName}: reading failed part-way (${(error as Error).message})`);
      }
      if (next.done === true) break;
      let chunk = next.value;
      if (skip > 0) {
        const cut = Math.min(skip, chunk.length);
        chunk = chunk.subarray(cut);
        skip -= cut;
      }
      if (chunk.length > 0) yield chunk;
    }
  } finally {
    peeked.destroy();
  }
}

/**
 * Checks bytes and returns them as text. A source that can be opened again (a file, a zip
 * entry) is closed after its head is read and opened again to be read; a stream is read once.
 */
export async function openText(open: ByteSource, displayName: string, options: OpenOptions = {}, oneShot = false): Promise<TextInput> {
  // Only a stream may wait without end for its bytes: a file's reads end by themselves, and
  // staging stops between its pieces when interrupted.
  const signal = oneShot ? options.signal : undefined;
  const peeked = await readByteHead(open, displayName, signal);
  let choice: { encoding: string; bom: number };
  try {
    choice = textEncoding(peeked, displayName, options);
  } catch (error) {
    peeked.destroy();
    throw error;
  }
  const headDecoder = createChunkDecoder(choice.encoding);
  const headText = ownString(firstLines(headDecoder.decode(peeked.head.subarray(choice.bom)) + (peeked.truncated ? '' : headDecoder.end())));
  if (!oneShot) peeked.destroy();
  let reading: ByteHead | undefined = oneShot ? peeked : undefined;
  let digest: string | undefined;
  // Once read to its end, only the fingerprint is kept: a run holds every input it stages
  // (thousands, in an Amplitude export) until it ends.
  const finished = (): void => {
    digest = reading?.fingerprint();
    reading = undefined;
  };
  async function* text(): AsyncIterable<string> {
    reading ??= await readByteHead(open, displayName);
    yield* decodeText(reading, choice.encoding, choice.bom, displayName, signal);
    finished();
  }
  async function* bytes(): AsyncIterable<Buffer> {
    reading ??= await readByteHead(open, displayName);
    yield* contentBytes(reading, choice.bom, displayName, signal);
    finished();
  }
  return {
    compressed: peeked.compressed,
    encoding: choice.encoding,
    bomBytes: choice.bom,
    headText,
    text: text(),
    utf8Bytes: choice.encoding === 'utf-8' ? bytes() : undefined,
    fingerprint: () => digest ?? reading?.fingerprint(),
    close: async () => reading?.destroy(),
  };
}

/**
 * `text` as a string of its own: a slice of a longer string keeps all of it alive, and the head
 * kept of each input is cut from 64 KiB decoded (128 KiB as UTF-16), thousands of inputs a run.
 */
function ownString(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}

/** What a path names: a regular file, or a stream to be read once (a pipe, a FIFO, a device). */
async function statSource(path: string, displayName: string): Promise<{ stream: boolean; sizeBytes: number }> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new InputError(`${displayName}: is a directory, not a file`);
    return info.isFile() ? { stream: false, sizeBytes: info.size } : { stream: true, sizeBytes: -1 };
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new InputError(`${displayName}: no such file`);
    if (code === 'EACCES') throw new InputError(`${displayName}: permission denied`);
    throw new InputError(`${displayName}: cannot be read (${code ?? (error as Error).message})`);
  }
}

/**
 * Opens a pipe or FIFO without ever blocking a thread: opened non-blocking (which does not wait
 * for a FIFO's writer) and read as a socket is, by the event loop. A blocking open or read of
 * a FIFO with no writer held a thread that even the process's exit waits for, so SIGTERM was
 * ignored; this way Ctrl-C and SIGTERM end the command at once, waiting or reading.
 */
async function openStream(path: string, displayName: string): Promise<NodeJS.ReadableStream> {
  try {
    const fd = await openFd(path, constants.O_RDONLY | constants.O_NONBLOCK);
    return new Socket({ fd, readable: true, writable: false });
  } catch (error) {
    throw new InputError(`${displayName}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** Standard input, named `-` on the command line. */
export const STDIN_NAME = '-';
const STDIN_PATH = '<stdin>';

async function openStdin(options: OpenOptions): Promise<SourceInput> {
  // Standard input is a source like a file; the shell's other streams stay in src/cli.
  const stdin = standardStreams().stdin;
  if (stdin.isTTY === true) {
    throw new InputError(`${STDIN_NAME}: standard input is a terminal; pipe the data into it (e.g. zcat events.csv.gz | migrate export-source --from csv -)`);
  }
  const text = await textOrInputError(
    STDIN_PATH,
    openText(async () => stdin, STDIN_PATH, options, true),
  );
  return { path: STDIN_PATH, displayName: STDIN_PATH, sizeBytes: -1, ...text };
}

/** The text, or an InputError naming the source when its bytes could not be read. */
async function textOrInputError(name: string, opening: Promise<TextInput>): Promise<TextInput> {
  try {
    return await opening;
  } catch (error) {
    if (error instanceof MigrateError) throw error;
    throw new InputError(`${name}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/**
 * Checks a source and returns it as text; throws InputError when it cannot be one. `-` is
 * standard input; a pipe or FIFO is read as a stream, once.
 */
export async function openSourceInput(file: string, options: OpenOptions = {}): Promise<SourceInput> {
  if (file === STDIN_NAME) return openStdin(options);
  const path = resolve(file);
  const { stream, sizeBytes } = await statSource(path, file);
  if (stream) options.notice?.(`${file}: a pipe or FIFO, read once as it comes; waiting for its data`);
  const columnar = stream ? undefined : await columnarKind(path);
  if (columnar !== undefined) return (columnar === 'parquet' ? openParquetInput : openAvroInput)(path, file, sizeBytes, async () => openSourceInput(file, options));
  const open: ByteSource = stream ? () => openStream(path, file) : async () => createReadStream(path, { highWaterMark: CHUNK_BYTES });
  const input: SourceInput = { path, displayName: file, sizeBytes, ...(await textOrInputError(file, openText(open, file, options, stream))) };
  if (!stream) input.reopen = async (again) => openSourceInput(file, { ...options, ...again });
  return input;
}

/** Parquet or Avro, told by the file's first four bytes. */
async function columnarKind(path: string): Promise<ColumnarKind | undefined> {
  const handle = await openFile(path, 'r');
  try {
    const head = new Uint8Array(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    if (bytesRead < 4) return undefined;
    return columnarKindOf(head);
  } finally {
    await handle.close();
  }
}

/** True when `file` is a regular file (not standard input, a pipe or a FIFO, which are read only once). */
export async function isRegularFile(file: string): Promise<boolean> {
  if (file === STDIN_NAME) return false;
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
