import { describe, expect, it } from 'vitest';
import { decompressLz64 } from '../../src/sandbox/capture/lz-string.js';
import { compressToLz64 } from '../helpers/lz-string-compress.js';

const BATCH = JSON.stringify([{ event: '$pageview', distinct_id: 'ana', properties: { token: 'phc_x', url: 'https://example.com/?q=été' } }]);

describe('decompressLz64', () => {
  it.each([
    ['empty text', ''],
    ['one character', 'a'],
    ['repeats (a word made of the previous word)', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['a batch of events', BATCH],
    ['16-bit characters', 'Grüße 中文 😀 ok'],
    ['a long text that widens the codes many times', Array.from({ length: 2000 }, (_, i) => `k${i % 97}:${i}`).join(',')],
  ])('reads back %s', (_name, text) => {
    expect(decompressLz64(compressToLz64(text), 1_000_000)).toEqual({ text });
  });

  it('knows a value written by LZ-string itself', () => {
    // "hello" as LZ-string's compressToBase64 writes it.
    expect(decompressLz64('BYUwNmD2Q===', 100)).toEqual({ text: 'hello' });
  });

  it.each([
    ['output over the cap', compressToLz64('x'.repeat(5000)), 1000, { error: 'too_large' }],
    ['input cut short', compressToLz64(BATCH).slice(0, 20), 1_000_000, { error: 'invalid' }],
    ['a code naming no entry', '////', 1_000_000, { error: 'invalid' }],
  ])('refuses %s', (_name, input, cap, expected) => {
    expect(decompressLz64(input, cap)).toEqual(expected);
  });
});
