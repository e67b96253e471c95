import { describe, expect, it } from 'vitest';
import { LAZY_FROM_BYTES, LazyCell, lazyParsers, settled } from '../../src/sources/columnar/lazy-cells.js';

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');
/** Calls a parser as hyparquet does, with whatever it is given. */
const call = (parser: unknown, raw: unknown): unknown => (parser as (raw: unknown) => unknown)(raw);

describe('lazyParsers', () => {
  it.each([
    ['a short text', 'é'.repeat(3), false],
    ['a text just under the bound', 'a'.repeat(LAZY_FROM_BYTES - 1), false],
    ['a text at the bound', 'a'.repeat(LAZY_FROM_BYTES), true],
    ['a long text with four-byte characters', '🚀'.repeat(100), true],
  ])('gives what the parser gives, decoded when asked for: %s', (_name, value, lazy) => {
    const parsers = lazyParsers({ stringFromBytes: text });
    const page = Buffer.from(`xx${value}yy`);
    const cell = call(parsers.stringFromBytes, page.subarray(2, page.length - 2));
    expect(cell instanceof LazyCell).toBe(lazy);
    expect(settled(cell)).toBe(value);
  });

  it('passes nulls through', () => {
    const parsers = lazyParsers({ stringFromBytes: (b: Uint8Array | undefined) => b, timestampFromMicroseconds: (c: bigint | null) => c });
    expect(call(parsers.stringFromBytes, undefined)).toBeUndefined();
    expect(call(parsers.timestampFromMicroseconds, null)).toBeNull();
  });

  it('decodes a cell once, however many rows share it (a dictionary value)', () => {
    let calls = 0;
    const parsers = lazyParsers({
      jsonFromBytes: (bytes: Uint8Array) => {
        calls++;
        return text(bytes);
      },
    });
    const cell = call(parsers.jsonFromBytes, Buffer.from(`{"a":"${'x'.repeat(100)}"}`));
    expect(settled(cell)).toBe(settled(cell));
    expect(calls).toBe(1);
  });

  it('turns a time into its text when asked for', () => {
    const parsers = lazyParsers({ timestampFromMicroseconds: (c: bigint) => `t${c}` });
    const cell = call(parsers.timestampFromMicroseconds, 5n);
    expect(cell instanceof LazyCell).toBe(true);
    expect(settled(cell)).toBe('t5');
  });

  it('leaves values that are not cells as they are', () => {
    expect(settled('a')).toBe('a');
    expect(settled(null)).toBeNull();
  });
});
