import { constants, zstdCompressSync } from 'node:zlib';
import { readPlain } from 'hyparquet/src/plain.js';
import { describe, expect, it } from 'vitest';
import { isZstdFrame, StreamedPage } from '../../src/sources/columnar/parquet-page-stream.js';

type PlainType = Parameters<typeof readPlain>[1];

/** `count` PLAIN values of `type`, as bytes: BYTE_ARRAY values of every length from 0 to 300, the others counting bytes. */
function plainBytes(type: PlainType, count: number, typeLength = 0): Uint8Array {
  if (type !== 'BYTE_ARRAY') return Uint8Array.from({ length: count * ({ INT32: 4, INT64: 8, INT96: 12, FLOAT: 4, DOUBLE: 8 }[type as string] ?? typeLength) }, (_, i) => (i * 7) % 251);
  const parts: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const value = Buffer.from(`é${'x'.repeat(i % 300)}${i}`);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(value.length);
    parts.push(length, value);
  }
  return Buffer.concat(parts);
}

/** zstd with a small window (so the stream reads far past it) and blocks of every size the input makes. */
const compress = (bytes: Uint8Array): Uint8Array => zstdCompressSync(bytes, { params: { [constants.ZSTD_c_windowLog]: 12, [constants.ZSTD_c_compressionLevel]: 3 } });

/** Values compared as text (a byte array as hex): comparing thousands of views of a large buffer is slow. */
const comparable = (values: unknown): unknown[] => Array.from(values as ArrayLike<unknown>, (v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v));

const wholeValues = (bytes: Uint8Array, type: PlainType, count: number, typeLength?: number): unknown[] =>
  comparable(readPlain({ view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 }, type, count, typeLength));

describe('a zstd page decompressed as its PLAIN values are read', () => {
  const cases: Array<[PlainType, number?]> = [['BYTE_ARRAY'], ['INT32'], ['INT64'], ['INT96'], ['FLOAT'], ['DOUBLE'], ['FIXED_LEN_BYTE_ARRAY', 16]];
  it.each(cases)('gives the values of the whole page, %s, taken 1, 13 and 1,000 at a time', (type, typeLength) => {
    const count = 3000;
    const bytes = plainBytes(type, count, typeLength);
    const compressed = compress(bytes);
    expect(isZstdFrame(compressed)).toBe(true);
    const whole = wholeValues(bytes, type, count, typeLength);
    for (const step of [1, 13, 1000]) {
      const stream = new StreamedPage(compressed, bytes.length);
      const taken: unknown[] = [];
      for (let at = 0; at < count; at += step) taken.push(...comparable(stream.values(type, Math.min(step, count - at), typeLength)));
      // Buffers it let go of are freed as the reader frees them; values read later stay whole.
      for (const spent of stream.takeReplaced()) expect(spent.byteLength).toBeGreaterThan(0);
      stream.finish();
      expect(taken).toEqual(whole);
    }
  });

  it('reads a V1 page: its levels, then its values', () => {
    // Levels: 4-byte length, then one RLE run of 10 values of bit width 1 (header 10 << 1, value 1).
    const levels = Uint8Array.of(2, 0, 0, 0, 20, 1);
    const values = plainBytes('BYTE_ARRAY', 10);
    const page = new Uint8Array([...levels, ...values]);
    const stream = new StreamedPage(compress(page), page.length);
    const def = new Uint8Array(10);
    stream.levels(1, def);
    expect([...def]).toEqual(new Array(10).fill(1));
    expect(comparable(stream.values('BYTE_ARRAY', 10, undefined))).toEqual(wholeValues(values, 'BYTE_ARRAY', 10));
    stream.finish();
  });

  it('refuses a page whose size is not the one its header gives, as a whole-page read does', () => {
    const bytes = plainBytes('INT64', 1000);
    const short = new StreamedPage(compress(bytes), bytes.length + 8);
    short.values('INT64', 1000, undefined);
    expect(() => short.finish()).toThrow(`parquet decompressed page length ${bytes.length} does not match header ${bytes.length + 8}`);
    const long = new StreamedPage(compress(bytes), bytes.length - 8);
    expect(() => long.values('INT64', 1000, undefined)).toThrow('does not match header');
    const truncated = new StreamedPage(compress(bytes).subarray(0, 100), bytes.length);
    expect(() => truncated.values('INT64', 1000, undefined)).toThrow();
  });
});
