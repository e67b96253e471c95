import { describe, expect, it } from 'vitest';
import { halves, splitPoint } from '../../src/source-apis/key-range.js';

const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe('splitPoint', () => {
  it.each([
    [{}, '@'],
    [{ to: '@' }, ' '],
    [{ from: '@' }, '`'],
    [{ from: 'a', to: 'b' }, 'a@'],
    [{ from: 'user-1', to: 'user-2' }, 'user-1@'],
  ])('%j is cut at %j', (range, at) => {
    expect(splitPoint(range)).toBe(at);
  });

  it('finds no key between adjacent keys', () => {
    expect(splitPoint({ from: 'a', to: 'a\u0001' })).toBeUndefined();
  });

  it('cuts strictly inside ranges of non-ASCII keys, in UTF-8 byte order', () => {
    for (const range of [{ from: 'é', to: 'ü' }, { from: 'a', to: 'é' }, { from: 'zz', to: '日本' }, { from: '日' }]) {
      const at = splitPoint(range);
      if (at === undefined) continue;
      expect(bytes(range.from, at)).toBeLessThan(0);
      if ('to' in range) expect(bytes(at, range.to!)).toBeLessThan(0);
    }
  });

  it('halves partition the range: the first ends where the second starts', () => {
    expect(halves({ from: 'a', to: 'b' })).toEqual([
      { from: 'a', to: 'a@' },
      { from: 'a@', to: 'b' },
    ]);
  });

  it('reaches any key of a shared prefix within the split floor', () => {
    let range: { from?: string; to?: string } = {};
    let depth = 0;
    const key = 'user-0042@example.com';
    while (depth < 96) {
      const cut = halves(range);
      if (cut === undefined) break;
      range = bytes(key, cut[0].to!) < 0 ? cut[0] : cut[1];
      depth++;
      if (range.from !== undefined && range.to !== undefined && range.from.startsWith('user-0042') && range.to.startsWith('user-0042')) break;
    }
    expect(depth).toBeLessThan(96);
  });
});
