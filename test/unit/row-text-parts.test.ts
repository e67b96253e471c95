import { describe, expect, it } from 'vitest';
import { utf8OfParts, utf8OfText } from '../../src/sources/columnar/row-text.js';

/** A lone low surrogate in the range the text decoder marks bad bytes with (U+DC80..U+DCFF). */
const MARK = String.fromCharCode(0xdcff);

describe('utf8OfParts', () => {
  it.each([
    ['one short part', ['{"a":1}\n']],
    ['many parts past the encoding step', Array.from({ length: 5000 }, (_, i) => (i % 3 === 0 ? `"é${i}",` : `{"k${i}":"🚀"}\n`))],
    ['a long part alone', ['x'.repeat(40_000), '\n']],
    ['a pair of surrogates split over two parts at the step', ['a'.repeat(16 * 1024 - 1) + '\ud83d', '\ude80', MARK, '\n']],
    ['marked bad bytes at the parts edges', [MARK, 'b'.repeat(20_000), MARK, '\ud83d\ude80', MARK]],
  ])('gives the bytes of the joined text: %s', (_name, parts) => {
    const out: Buffer[] = [];
    const chars = utf8OfParts(parts, out);
    const joined = parts.join('');
    expect(chars).toBe(joined.length);
    expect(Buffer.compare(Buffer.concat(out), utf8OfText(joined))).toBe(0);
  });

  it('encodes a long chunk in several buffers rather than one string', () => {
    const out: Buffer[] = [];
    utf8OfParts(
      Array.from({ length: 100 }, () => 'é'.repeat(1000)),
      out,
    );
    expect(out.length).toBeGreaterThan(1);
  });
});
