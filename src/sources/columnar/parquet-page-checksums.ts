/**
 * Parquet page checksums: a page header may carry the CRC-32 of the page's bytes as stored
 * (after compression), which pyarrow (`write_page_checksum`), parquet-mr and Spark write.
 * hyparquet does not check them, so a column chunk's pages are checked here before it decodes
 * them: a flipped byte in an uncompressed page would otherwise be staged as a different value.
 * Pure: reads bytes already in memory. Page headers are Thrift compact-protocol structs; only
 * fields 3 (compressed_page_size) and 4 (crc) are read, the rest skipped.
 */
import { crc32 } from 'node:zlib';

/** A compact-protocol reader over bytes; each read throws RangeError past their end. */
class Compact {
  constructor(
    private readonly bytes: Uint8Array,
    public pos: number,
  ) {}

  byte(): number {
    if (this.pos >= this.bytes.length) throw new RangeError('a page header runs past its column chunk');
    return this.bytes[this.pos++]!;
  }

  varint(): number {
    let result = 0;
    let factor = 1;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * factor;
      if ((b & 0x80) === 0) return result;
      factor *= 128;
    }
  }

  zigzag(): number {
    const n = this.varint();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  skip(type: number): void {
    if (type === 1 || type === 2) return; // booleans live in the field header
    if (type === 3) this.pos += 1;
    else if (type === 4 || type === 5 || type === 6) this.varint();
    else if (type === 7) this.pos += 8;
    else if (type === 8) {
      const length = this.varint(); // read before `pos` is: `pos += varint()` would add to the position before the length
      this.pos += length;
    } else if (type === 9 || type === 10) this.skipList();
    else if (type === 11) this.skipMap();
    else if (type === 12) this.skipStruct();
    else throw new RangeError(`unknown Thrift type ${type} in a page header`);
  }

  private skipList(): void {
    const head = this.byte();
    const size = head >> 4 === 15 ? this.varint() : head >> 4;
    const type = head & 0x0f;
    for (let i = 0; i < size; i++) {
      if (type === 1 || type === 2) this.pos += 1;
      else this.skip(type);
    }
  }

  private skipMap(): void {
    const size = this.varint();
    if (size === 0) return;
    const types = this.byte();
    for (let i = 0; i < size; i++) {
      this.skip(types >> 4);
      this.skip(types & 0x0f);
    }
  }

  /** Reads a struct's fields, handing each i32 field to `onI32` and skipping the rest. */
  skipStruct(onI32?: (field: number, value: number) => void): void {
    let field = 0;
    for (;;) {
      const head = this.byte();
      if (head === 0) return;
      const type = head & 0x0f;
      field = head >> 4 === 0 ? this.zigzag() : field + (head >> 4);
      if (type === 5 && onI32 !== undefined) onI32(field, this.zigzag());
      else this.skip(type);
    }
  }
}

/** A page header's sizes: where its page's bytes start, how many there are, and their CRC when written. */
function pageHeader(bytes: Uint8Array, at: number): { start: number; size: number; crc?: number } {
  const reader = new Compact(bytes, at);
  let size = -1;
  let crc: number | undefined;
  reader.skipStruct((field, value) => {
    if (field === 3) size = value;
    else if (field === 4) crc = value >>> 0;
  });
  if (size < 0) throw new RangeError('a page header has no page size');
  return { start: reader.pos, size, crc };
}

/**
 * Checks the CRC of every page of a column chunk (its bytes from its first page header) that
 * carries one; returns where the first page whose bytes differ from their CRC starts (its byte
 * in the chunk), or undefined. Headers that cannot be read are left to the decoder to refuse.
 */
export function firstBadPage(chunk: Uint8Array): number | undefined {
  let at = 0;
  while (at < chunk.length) {
    let header: ReturnType<typeof pageHeader>;
    try {
      header = pageHeader(chunk, at);
    } catch {
      return undefined;
    }
    const end = header.start + header.size;
    if (end > chunk.length) return undefined;
    if (header.crc !== undefined && crc32(chunk.subarray(header.start, end)) !== header.crc) return at;
    at = end;
  }
  return undefined;
}
