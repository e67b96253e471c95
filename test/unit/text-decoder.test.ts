import { describe, expect, it } from 'vitest';
import { markedBytesProblem } from '../../src/sources/invalid-text.js';
import { byteOrderMark, createChunkDecoder, decodeUtf8Marking, encodingName } from '../../src/sources/text-decoder.js';
import { seededRandom } from '../helpers/random-json.js';

/** Decodes `bytes` fed in chunks of `size` bytes. */
function decode(encoding: string, bytes: Uint8Array, size: number): string {
  const decoder = createChunkDecoder(encoding);
  let out = '';
  for (let i = 0; i < bytes.length; i += size) out += decoder.decode(bytes.subarray(i, i + size));
  return out + decoder.end();
}

const mark = (byte: number): string => String.fromCharCode(0xdc00 + byte);

describe('UTF-8 decoding', () => {
  it.each<[string, number[], string]>([
    ['plain text', [...Buffer.from('naïve 東京 🎉')], 'naïve 東京 🎉'],
    ['a genuine U+FFFD stays', [0x61, 0xef, 0xbf, 0xbd, 0x62], 'a\ufffdb'],
    ['a latin1 é is marked', [0x63, 0x61, 0x66, 0xe9, 0x2c], `caf${mark(0xe9)},`],
    ['each bad byte of a sequence is marked', [0xed, 0xa0, 0x80], mark(0xed) + mark(0xa0) + mark(0x80)],
    ['an overlong form is marked', [0xc0, 0xaf], mark(0xc0) + mark(0xaf)],
    ['a cut sequence at the end is marked', [0x61, 0xe6, 0x9d], `a${mark(0xe6)}${mark(0x9d)}`],
    ['beyond U+10FFFF is marked', [0xf4, 0x90, 0x80, 0x80], mark(0xf4) + mark(0x90) + mark(0x80) + mark(0x80)],
  ])('%s', (_name, bytes, expected) => {
    const data = Uint8Array.from(bytes);
    for (const size of [1, 2, 3, bytes.length]) expect(decode('utf-8', data, size)).toBe(expected);
  });

  it('decodes any chunking of valid and invalid bytes alike (random)', () => {
    const random = seededRandom(11);
    for (let run = 0; run < 200; run++) {
      const parts: number[] = [];
      for (let i = 0; i < 40; i++) {
        const pick = random();
        if (pick < 0.6) parts.push(...Buffer.from(['a', 'é', '東', '🎉', '\n'][Math.floor(random() * 5)]!));
        else parts.push(Math.floor(random() * 256));
      }
      const bytes = Uint8Array.from(parts);
      const whole = decodeUtf8Marking(bytes);
      expect(decode('utf-8', bytes, 1 + Math.floor(random() * 7))).toBe(whole);
      // Valid input decodes as Buffer does; only invalid bytes become marks.
      if (
        Buffer.from(bytes).toString('utf8') ===
        Buffer.from(bytes)
          .toString('utf8')
          .replace(/\ufffd/g, '')
      )
        expect(whole).toBe(Buffer.from(bytes).toString('utf8'));
    }
  });
});

describe('UTF-8 decoding of long ranges', () => {
  it('marks the same bytes when long ranges are split and their valid halves decoded natively (random)', () => {
    const random = seededRandom(23);
    const pieces = ['a', 'é', '東', '🎉', '\n', '{"k":1}', '\ufffd'].map((t) => Buffer.from(t));
    const bad = [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0x80, 0x80, 0x80, 0x80, 0x80], [0xf0, 0x9f, 0x98]].map((b) => Buffer.from(b));
    for (let run = 0; run < 30; run++) {
      const parts: Buffer[] = [];
      const size = 1_000 + Math.floor(random() * 60_000);
      const badness = random() < 0.3 ? 0 : random() * 0.01;
      for (let bytes = 0; bytes < size; ) {
        const part = random() < badness ? bad[Math.floor(random() * bad.length)]! : pieces[Math.floor(random() * pieces.length)]!;
        parts.push(part);
        bytes += part.length;
      }
      const bytes = Buffer.concat(parts);
      // Chunks of 7 bytes are decoded byte by byte wherever they hold a bad byte: the reference.
      expect(decodeUtf8Marking(bytes)).toBe(decode('utf-8', bytes, 7));
      const from = Math.floor(random() * 100);
      expect(decodeUtf8Marking(bytes, from, bytes.length - from)).toBe(decode('utf-8', bytes.subarray(from, bytes.length - from), 7));
    }
  });
});

describe('other encodings', () => {
  it('UTF-16 both ways, a pair cut anywhere; a lone surrogate stays lone', () => {
    const text = 'a,é\n東🎉';
    const le = Buffer.from(text, 'utf16le');
    const be = Buffer.from(le).swap16();
    for (const size of [1, 3, 5]) {
      expect(decode('utf-16le', le, size)).toBe(text);
      expect(decode('utf-16be', be, size)).toBe(text);
    }
    expect(decode('utf-16le', Uint8Array.from([0x00, 0xd8, 0x61, 0x00]), 1)).toBe('\ud800a');
    expect(decode('utf-16le', Uint8Array.from([0x61, 0x00, 0x00, 0xd8]), 4)).toBe('a\ud800');
    // No chunk of text ends with the first half of a pair.
    const decoder = createChunkDecoder('utf-16le');
    const pair = Buffer.from('a🎉', 'utf16le');
    expect([decoder.decode(pair.subarray(0, 4)), decoder.decode(pair.subarray(4)), decoder.end()]).toEqual(['a', '🎉', '']);
  });

  it('legacy encodings through TextDecoder, with what they cannot read marked', () => {
    expect(decode('windows-1252', Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x80]), 2)).toBe('café€');
    expect(decode('shift_jis', Buffer.from([0x93, 0x8c, 0x8b, 0x9e]), 1)).toBe('東京');
    expect(decode('shift_jis', Uint8Array.from([0x61, 0xa0]), 1)).toBe(`a${String.fromCharCode(0xdc00)}`);
  });

  it.each<[string, string | undefined]>([
    ['latin1', 'windows-1252'],
    ['UTF8', 'utf-8'],
    [' utf-16le ', 'utf-16le'],
    ['sjis', 'shift_jis'],
    ['klingon', undefined],
  ])('label %s is %s', (label, name) => {
    expect(encodingName(label)).toBe(name);
  });

  it.each<[number[], ReturnType<typeof byteOrderMark>]>([
    [[0xef, 0xbb, 0xbf, 0x61], { encoding: 'utf-8', bytes: 3 }],
    [[0xff, 0xfe, 0x61, 0x00], { encoding: 'utf-16le', bytes: 2 }],
    [[0xfe, 0xff, 0x00, 0x61], { encoding: 'utf-16be', bytes: 2 }],
    [[0x61, 0x62], undefined],
  ])('byte-order mark of %j', (bytes, expected) => {
    expect(byteOrderMark(Uint8Array.from(bytes))).toEqual(expected);
  });
});

describe('rows holding marked bytes', () => {
  it.each<[string, string | undefined, RegExp | undefined]>([
    ['plain', 'utf-8', undefined],
    ['a genuine \ufffd and 🎉', 'utf-8', undefined],
    [`é,caf${mark(0xe9)}`, 'utf-8', /^byte 0xE9 at offset 6 of the row is not valid UTF-8 \(is the file in another encoding\? see --encoding\)$/],
    ['x\ud800y', 'utf-16le', /unpaired UTF-16 surrogate at character 2, which is not valid UTF-16LE/],
    [`a${String.fromCharCode(0xdc00)}`, 'shift_jis', /bytes at character 2 of the row are not valid shift_jis/],
  ])('%j (%s)', (raw, encoding, message) => {
    const found = markedBytesProblem(raw, encoding);
    if (message === undefined) expect(found).toBeUndefined();
    else expect(found).toMatchObject({ reason: 'invalid_utf8', field: '', message: expect.stringMatching(message) });
  });
});
