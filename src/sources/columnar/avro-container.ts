/**
 * The blocks of an Avro object container file, read from disk by ranges: its header (magic
 * `Obj\x01`, metadata map with the schema and codec, 16-byte sync marker), then each block's
 * record count and byte size, found by seeking from block to block without reading the blocks.
 * A block's bytes are read and decompressed (null, deflate, snappy, zstandard) only when asked: memory is
 * bounded by one block.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { crc32, inflateRawSync, zstdDecompressSync } from 'node:zlib';
import { snappyUncompress } from 'hysnappy';
import { InputError } from '../../errors.js';

export function isAvro(head: Uint8Array): boolean {
  return head.length >= 4 && head[0] === 0x4f && head[1] === 0x62 && head[2] === 0x6a && head[3] === 0x01;
}

const CODECS = ['null', 'deflate', 'snappy', 'zstandard'] as const;
type Codec = (typeof CODECS)[number];

export interface AvroBlock {
  records: number;
  /** Where the block's (compressed) bytes start in the file, and their length. */
  offset: number;
  bytes: number;
}

export interface AvroContainer {
  schemaJson: string;
  codec: Codec;
  blocks: AvroBlock[];
  /** A block's bytes, decompressed. */
  blockData(index: number): Promise<Buffer>;
  close(): Promise<void>;
}

/** A zigzag varint long at `pos` of `bytes`, and the position after it; undefined when the bytes end first. */
export function readLong(bytes: Uint8Array, pos: number): { value: number; next: number } | undefined {
  let result = 0n;
  let shift = 0n;
  for (let at = pos; at < bytes.length && shift < 70n; at++) {
    const byte = bytes[at]!;
    result |= BigInt(byte & 0x7f) << shift;
    shift += 7n;
    if ((byte & 0x80) === 0) return { value: Number((result >> 1n) ^ -(result & 1n)), next: at + 1 };
  }
  return undefined;
}

class Truncated extends Error {}

/** The header parsed from `bytes`; Truncated when they end before it does. */
export function parseHeader(bytes: Uint8Array): { metadata: Map<string, Buffer>; sync: Buffer; end: number } {
  const metadata = new Map<string, Buffer>();
  let pos = 4;
  const long = (): number => {
    const read = readLong(bytes, pos);
    if (read === undefined) throw new Truncated();
    pos = read.next;
    return read.value;
  };
  const take = (length: number): Buffer => {
    if (length < 0 || pos + length > bytes.length) throw new Truncated();
    const out = Buffer.from(bytes.subarray(pos, pos + length));
    pos += length;
    return out;
  };
  for (let count = long(); count !== 0; count = long()) {
    if (count < 0) long(); // a negative count is followed by the block's byte size
    for (let i = 0; i < Math.abs(count); i++) metadata.set(take(long()).toString('utf8'), take(long()));
  }
  return { metadata, sync: take(16), end: pos };
}

async function readAt(handle: FileHandle, offset: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, offset + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buffer.subarray(0, done);
}

async function readHeader(handle: FileHandle, sizeBytes: number, displayName: string): Promise<{ bytes: Buffer; header: ReturnType<typeof parseHeader> }> {
  for (let length = 64 * 1024; ; length *= 4) {
    const bytes = await readAt(handle, 0, Math.min(length, sizeBytes));
    try {
      return { bytes, header: parseHeader(bytes) };
    } catch (error) {
      if (!(error instanceof Truncated)) throw error;
      if (length >= sizeBytes) throw new InputError(`${displayName}: is not an Avro file that can be read (it ends inside its header)`);
    }
  }
}

/** Every block's count and place, checking each one's sync marker. */
async function scanBlocks(handle: FileHandle, start: number, sizeBytes: number, sync: Buffer, displayName: string): Promise<AvroBlock[]> {
  const blocks: AvroBlock[] = [];
  let pos = start;
  while (pos < sizeBytes) {
    const head = await readAt(handle, pos, 20);
    const records = readLong(head, 0);
    const bytes = records === undefined ? undefined : readLong(head, records.next);
    const where = `block ${blocks.length + 1} (at byte ${pos})`;
    if (records === undefined || bytes === undefined || records.value < 0 || bytes.value < 0)
      throw new InputError(`${displayName}: ${where} has no valid record count and size; the file is damaged or cut short`);
    const offset = pos + bytes.next;
    const end = offset + bytes.value;
    const marker = await readAt(handle, end, 16);
    if (!marker.equals(sync)) throw new InputError(`${displayName}: ${where} is not followed by the file's sync marker; the file is damaged or cut short`);
    blocks.push({ records: records.value, offset, bytes: bytes.value });
    pos = end + 16;
  }
  return blocks;
}

/** A snappy block: the compressed bytes, then the big-endian CRC-32 of the uncompressed ones. */
function unsnappy(data: Buffer): Buffer {
  const compressed = data.subarray(0, data.length - 4);
  const length = readUnsignedVarint(compressed);
  const out = Buffer.from(snappyUncompress(compressed, length));
  if (data.length < 4 || crc32(out) !== data.readUInt32BE(data.length - 4)) throw new Error('its snappy checksum does not match');
  return out;
}

/** Snappy's preamble: the uncompressed length as an unsigned varint. */
function readUnsignedVarint(bytes: Uint8Array): number {
  let value = 0;
  for (let i = 0; i < 5 && i < bytes.length; i++) {
    value += (bytes[i]! & 0x7f) * 2 ** (7 * i);
    if ((bytes[i]! & 0x80) === 0) return value;
  }
  throw new Error('its snappy length is not valid');
}

function decompress(codec: Codec, data: Buffer): Buffer {
  if (codec === 'deflate') return inflateRawSync(data);
  if (codec === 'snappy') return unsnappy(data);
  // A zstandard block is one zstd frame; its checksum, when the writer added one, is checked by zlib.
  if (codec === 'zstandard') return zstdDecompressSync(data);
  return data;
}

/** Opens an Avro container file and finds its blocks; InputError when it is not one that can be read. */
export async function openAvroContainer(path: string, displayName: string, sizeBytes: number): Promise<AvroContainer> {
  const { header, blocks } = await withHandle(path, async (handle) => {
    const { header } = await readHeader(handle, sizeBytes, displayName);
    return { header, blocks: await scanBlocks(handle, header.end, sizeBytes, header.sync, displayName) };
  });
  // The handle is opened at the first block read and held until closed: a run opens every input before staging.
  let opened: Promise<FileHandle> | undefined;
  return avroContainerOf(header.metadata, blocks, displayName, {
    read: async (offset, length) => {
      opened ??= open(path, 'r');
      return readAt(await opened, offset, length);
    },
    close: async () => {
      const handle = opened;
      opened = undefined;
      if (handle !== undefined) await (await handle).close().catch(() => {});
    },
  });
}

/** Where a container's block bytes are read from: a file on disk, or an object of a bucket (buckets/object-avro.ts). */
export interface AvroBytes {
  /** Up to `length` bytes from `offset` (fewer only where the bytes end). */
  read(offset: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

/** The container of a header's metadata and the blocks found, its blocks read from `bytes`; InputError for a codec not read or no schema. */
export function avroContainerOf(metadata: Map<string, Buffer>, blocks: AvroBlock[], displayName: string, bytes: AvroBytes): AvroContainer {
  const codec = (metadata.get('avro.codec')?.toString('utf8') ?? 'null') as Codec;
  if (!CODECS.includes(codec)) throw new InputError(`${displayName}: uses the Avro codec "${codec}", which is not read (null, deflate, snappy and zstandard are)`);
  const schemaJson = metadata.get('avro.schema')?.toString('utf8');
  if (schemaJson === undefined) throw new InputError(`${displayName}: is an Avro file without a schema (avro.schema)`);
  return {
    schemaJson,
    codec,
    blocks,
    async blockData(index) {
      const block = blocks[index]!;
      const data = await bytes.read(block.offset, block.bytes);
      try {
        if (data.length < block.bytes) throw new Error('the file ends inside it');
        return decompress(codec, data);
      } catch (error) {
        throw new InputError(`${displayName}: block ${index + 1} cannot be read (${(error as Error).message})`);
      }
    },
    close: () => bytes.close(),
  };
}

async function withHandle<T>(path: string, use: (handle: FileHandle) => Promise<T>): Promise<T> {
  const handle = await open(path, 'r');
  try {
    return await use(handle);
  } finally {
    await handle.close().catch(() => {});
  }
}
