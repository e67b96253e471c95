import { describe, expect, it } from 'vitest';
import { utf8OfText } from '../../src/sources/columnar/row-text.js';
import { decodeUtf8Marking } from '../../src/sources/text-decoder.js';

describe('utf8OfText', () => {
  it.each([
    ['ASCII', Buffer.from('{"a":1}\n')],
    ['two- and four-byte characters', Buffer.from('{"é":"🚀"}\n')],
    ['a bad byte between valid text', Buffer.from([0x7b, 0x22, 0xff, 0x41, 0x22, 0x7d, 0x0a])],
    ['bad bytes next to a four-byte character', Buffer.concat([Buffer.from('🚀'), Buffer.from([0xc3]), Buffer.from('🚀'), Buffer.from([0x80, 0xfe])])],
  ])('writes the text a file decoded to back as its bytes: %s', (_name, bytes) => {
    const text = decodeUtf8Marking(bytes);
    const out = utf8OfText(text);
    expect(Buffer.compare(out, bytes)).toBe(0);
    expect(decodeUtf8Marking(out)).toBe(text);
  });

  it('gives a buffer of its own, never a slice of the shared pool', () => {
    const out = utf8OfText('a');
    expect(out.buffer.byteLength).toBe(1);
  });
});
