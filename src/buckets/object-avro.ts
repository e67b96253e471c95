/**
 * An Avro object of a bucket, streamed from its body, never written to disk. Opening it reads
 * the object once from start to end: its header, each block's record count and size (the
 * blocks' bytes are passed over, never held), and the SHA-256 of all its bytes, which is the
 * key a resumed read checks, as a file's is. Reading it then streams its blocks in order from
 * a ranged GET at the first block wanted, guarded by the ETag it was listed with; a block
 * further on than the stream has reached is got to by reading on, a gap too wide by a new
 * ranged GET. Memory is bounded by one block.
 */
import { createHash } from 'node:crypto';
import { InputError } from '../errors.js';
import { parseHeader, readLong, type AvroBlock, type AvroBytes } from '../sources/columnar/avro-container.js';
import type { BucketContext } from './bucket-calls.js';
import { objectChunks, type ObjectAddress } from './object-bytes.js';

/** A header longer than this is not read: Avro headers are a schema and a few names. */
const MAX_HEADER_BYTES = 64 * 1024 * 1024;
/** A gap up to this many bytes before the next block wanted is read through rather than fetched anew. */
const READ_THROUGH_BYTES = 1024 * 1024;
const SYNC_BYTES = 16;

export interface ScannedAvro {
  metadata: Map<string, Buffer>;
  blocks: AvroBlock[];
  /** `sha256:<hex>` of the object's bytes. */
  digest: string;
}

/** Finds the blocks in the bytes after the header, as they stream past. */
class BlockScanner {
  readonly blocks: AvroBlock[] = [];
  private pending: Buffer = Buffer.alloc(0);
  /** Where `pending` starts in the object. */
  private at: number;
  private skip = 0;
  private block: AvroBlock | undefined;

  constructor(
    start: number,
    private readonly sync: Buffer,
    private readonly name: string,
  ) {
    this.at = start;
  }

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      this.consume(Math.min(this.skip, this.pending.length));
      if (this.skip > 0) return;
      if (this.block === undefined ? !this.readCounts() : !this.readSync()) return;
    }
  }

  end(): void {
    if (this.block !== undefined || this.pending.length > 0) throw this.damaged(this.block === undefined ? 'has no valid record count and size' : 'is cut short');
  }

  private consume(bytes: number): void {
    this.pending = this.pending.subarray(bytes);
    this.at += bytes;
    this.skip -= Math.min(this.skip, bytes);
  }

  private readCounts(): boolean {
    const records = readLong(this.pending, 0);
    const bytes = records === undefined ? undefined : readLong(this.pending, records.next);
    if (bytes === undefined) {
      if (this.pending.length >= 20) throw this.damaged('has no valid record count and size');
      return false;
    }
    if (records!.value < 0 || bytes.value < 0) throw this.damaged('has no valid record count and size');
    this.block = { records: records!.value, offset: this.at + bytes.next, bytes: bytes.value };
    this.consume(bytes.next);
    this.skip = bytes.value;
    return true;
  }

  private readSync(): boolean {
    if (this.pending.length < SYNC_BYTES) return false;
    if (!this.pending.subarray(0, SYNC_BYTES).equals(this.sync)) throw this.damaged("is not followed by the file's sync marker");
    this.blocks.push(this.block!);
    this.block = undefined;
    this.consume(SYNC_BYTES);
    return true;
  }

  private damaged(what: string): InputError {
    return new InputError(`${this.name}: block ${this.blocks.length + 1} (at byte ${this.block?.offset ?? this.at}) ${what}; the object is damaged or cut short`);
  }
}

/** Reads the object's bytes (from its start) through once: its header, its blocks' counts and places, its digest. */
export async function scanAvroObject(address: ObjectAddress, bytes: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<ScannedAvro> {
  const hash = createHash('sha256');
  let head: Buffer[] = [];
  let headBytes = 0;
  let header: ReturnType<typeof parseHeader> | undefined;
  let scanner: BlockScanner | undefined;
  for await (const chunk of bytes) {
    hash.update(chunk);
    if (scanner !== undefined) {
      scanner.push(chunk);
      continue;
    }
    head.push(chunk);
    headBytes += chunk.length;
    const bytes = Buffer.concat(head, headBytes);
    header = tryHeader(bytes);
    if (header === undefined) {
      if (headBytes > MAX_HEADER_BYTES) throw new InputError(`${address.url}: is not an Avro file that can be read (no end to its header in its first ${MAX_HEADER_BYTES} bytes)`);
      head = [bytes];
      continue;
    }
    head = [];
    scanner = new BlockScanner(header.end, header.sync, address.url);
    scanner.push(bytes.subarray(header.end));
  }
  if (header === undefined || scanner === undefined) throw new InputError(`${address.url}: is not an Avro file that can be read (it ends inside its header)`);
  scanner.end();
  return { metadata: header.metadata, blocks: scanner.blocks, digest: `sha256:${hash.digest('hex')}` };
}

/** The header, or undefined while the bytes end before it does. */
function tryHeader(bytes: Buffer): ReturnType<typeof parseHeader> | undefined {
  try {
    return parseHeader(bytes);
  } catch {
    return undefined;
  }
}

/** The object's bytes read forward from a ranged GET, for its blocks read in order. */
export class ObjectStream implements AvroBytes {
  private chunks: AsyncIterator<Buffer> | undefined;
  private held: Buffer = Buffer.alloc(0);
  /** Where the next byte of `held` (then of `chunks`) is in the object. */
  private at = -1;

  constructor(
    private readonly context: BucketContext,
    private readonly address: ObjectAddress,
  ) {}

  async read(offset: number, length: number): Promise<Buffer> {
    if (this.chunks === undefined || offset < this.at || offset - this.at > READ_THROUGH_BYTES) {
      await this.close();
      this.chunks = objectChunks(this.context, this.address, offset)[Symbol.asyncIterator]();
      this.at = offset;
    }
    await this.take(offset - this.at);
    return this.take(length);
  }

  /** The next `length` bytes (fewer where the object ends). */
  private async take(length: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let got = 0;
    while (got < length) {
      if (this.held.length === 0) {
        const next = await this.chunks!.next();
        if (next.done === true) break;
        this.held = next.value;
      }
      const part = this.held.subarray(0, length - got);
      this.held = this.held.subarray(part.length);
      parts.push(part);
      got += part.length;
    }
    this.at += got;
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, got);
  }

  async close(): Promise<void> {
    const chunks = this.chunks;
    this.chunks = undefined;
    this.held = Buffer.alloc(0);
    await chunks?.return?.();
  }
}
