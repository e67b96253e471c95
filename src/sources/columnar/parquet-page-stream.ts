/**
 * The values of a large zstd PLAIN page decompressed as they are read, never the whole page at
 * once. DuckDB writes a row group as one page per column chunk: the benchmark's `properties`
 * page is 32 MB once decompressed (1 MB compressed), and a row group's pages 49 MB, all held
 * while the group's rows were written. zstd needs only its window of earlier output to go on
 * (DuckDB's frames declare 2 MiB), so the page is made a few blocks at a time, in buffers of
 * their own that are freed once the rows read from them are written.
 *
 * fzstd is the decompressor hyparquet-compressors gives hyparquet (the same blocks decoder,
 * used by its streaming class), and the values are read by hyparquet's readPlain from the bytes
 * made, so each value is the one a whole-page read makes.
 */
import { Decompress } from 'fzstd';
import { readRleBitPackedHybrid } from 'hyparquet/src/encoding.js';
import { readPlain } from 'hyparquet/src/plain.js';

type DataReader = Parameters<typeof readPlain>[0];
type PlainType = Parameters<typeof readPlain>[1];
type DecodedArray = ReturnType<typeof readPlain>;

/** Pages made this large or larger are streamed; smaller ones cost less whole than a window. */
export const STREAMED_FROM_BYTES = 1024 * 1024;

/** Compressed bytes handed to the decompressor at a time: a few of its blocks' worth of output. */
const INPUT_BYTES = 16 * 1024;

/** The four bytes every zstd frame starts with (a page made of skippable frames is read whole). */
export function isZstdFrame(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd;
}

const FIXED_BYTES: Partial<Record<PlainType, number>> = { INT32: 4, INT64: 8, INT96: 12, FLOAT: 4, DOUBLE: 8 };

/** A page's bytes from its compressed ones, made in order as they are asked for. */
export class StreamedPage {
  /** Bytes made and not yet handed on in `buffer`, from `at`. */
  private buffer = new Uint8Array(0);
  private at = 0;
  private blocks: Uint8Array[] = [];
  private blockBytes = 0;
  private inputAt = 0;
  private made = 0;
  /** Buffers replaced since last asked: values read from them may be held until their rows are written. */
  private replaced: Uint8Array[] = [];
  private readonly decompressor: Decompress;

  constructor(
    private readonly compressed: Uint8Array,
    private readonly size: number,
  ) {
    this.decompressor = new Decompress((block) => {
      this.made += block.length;
      if (block.length === 0) return;
      this.blocks.push(block);
      this.blockBytes += block.length;
    });
  }

  /** RLE/bit-packed levels after their 4-byte length, as a V1 page holds them. */
  levels(bitWidth: number, out: Uint8Array | Int32Array): void {
    const reader = this.reader(4);
    const length = reader.view.getUint32(reader.offset, true);
    readRleBitPackedHybrid(this.reader(4 + length), bitWidth, out, undefined);
    this.at += 4 + length;
  }

  /** The next `count` PLAIN values of `type` (every type but BOOLEAN). */
  values(type: PlainType, count: number, typeLength: number | undefined): DecodedArray {
    const fixed = type === 'FIXED_LEN_BYTE_ARRAY' ? typeLength : FIXED_BYTES[type];
    this.reader(fixed === undefined ? this.byteArraysLength(count) : count * fixed);
    const reader = { view: new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength), offset: this.at };
    const values = readPlain(reader, type, count, typeLength);
    this.at = reader.offset;
    return values;
  }

  /** Buffers its values were read from that it no longer reads (freed once the rows taken so far are written). */
  takeReplaced(): Uint8Array[] {
    const out = this.replaced;
    this.replaced = [];
    return out;
  }

  /**
   * Decompresses what is left, to check that the page is the size its header says, as a
   * whole-page read does; its last buffer is then replaced too.
   */
  finish(): void {
    if (this.buffer.length > 0) this.replaced.push(this.buffer);
    this.buffer = new Uint8Array(0);
    this.at = 0;
    while (this.inputAt < this.compressed.length) {
      this.push();
      this.blocks = [];
      this.blockBytes = 0;
    }
    this.checkSize();
  }

  /** Bytes of the next `count` BYTE_ARRAY values (each a 4-byte length, then its bytes). */
  private byteArraysLength(count: number): number {
    let length = 0;
    for (let i = 0; i < count; i++) {
      const reader = this.reader(length + 4);
      length += 4 + reader.view.getUint32(reader.offset + length, true);
    }
    return length;
  }

  /** A reader at the next byte, with `bytes` made from there on. */
  private reader(bytes: number): DataReader {
    if (this.buffer.length - this.at < bytes) this.fill(bytes);
    return { view: new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength), offset: this.at };
  }

  private fill(bytes: number): void {
    const held = this.buffer.length - this.at;
    while (held + this.blockBytes < bytes && this.inputAt < this.compressed.length) this.push();
    if (held + this.blockBytes < bytes) {
      this.checkSize();
      throw new Error('parquet page ends before its values');
    }
    const next = new Uint8Array(held + this.blockBytes);
    next.set(this.buffer.subarray(this.at));
    let to = held;
    for (const block of this.blocks) {
      next.set(block, to);
      to += block.length;
    }
    if (this.buffer.length > 0) this.replaced.push(this.buffer);
    this.buffer = next;
    this.at = 0;
    this.blocks = [];
    this.blockBytes = 0;
  }

  private push(): void {
    const end = Math.min(this.inputAt + INPUT_BYTES, this.compressed.length);
    this.decompressor.push(this.compressed.subarray(this.inputAt, end), end === this.compressed.length);
    this.inputAt = end;
    if (this.made > this.size) this.checkSize();
  }

  private checkSize(): void {
    if (this.made !== this.size) throw new Error(`parquet decompressed page length ${this.made} does not match header ${this.size}`);
  }
}
