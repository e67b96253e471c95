import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeBody } from '../../src/sandbox/capture/capture-body.js';

const LIMIT = 64;
const utf8 = (text: string) => Buffer.from(text, 'utf8');

describe('decodeBody', () => {
  it.each([
    ['ASCII', utf8('{"a":"b"}'), false, { text: '{"a":"b"}' }],
    ['UTF-8', utf8('{"a":"é中😀"}'), false, { text: '{"a":"é中😀"}' }],
    ['a byte order mark is dropped', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8('[1]')]), false, { text: '[1]' }],
    ['gzip, recognised by its magic bytes', gzipSync(utf8('{"z":1}')), false, { text: '{"z":1}' }],
    ['gzip, hinted', gzipSync(utf8('{"z":"ü"}')), true, { text: '{"z":"ü"}' }],
    ['the limit itself', utf8('x'.repeat(LIMIT)), false, { text: 'x'.repeat(LIMIT) }],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), false, { status: 400, error: 'failed to decode request: invalid body encoding' }],
    ['a lone surrogate as WTF-8', Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), false, { status: 400, error: 'failed to decode request: invalid body encoding' }],
    ['bad gzip', Buffer.from([0x1f, 0x8b, 0x08, 0, 1, 2, 3]), false, { status: 400, error: 'failed to decode request: invalid gzip data' }],
    ['over the limit', utf8('x'.repeat(LIMIT + 1)), false, { status: 413, code: 'payload_too_large' }],
    ['over the limit once decompressed', gzipSync(utf8('x'.repeat(LIMIT * 10))), false, { status: 413, code: 'payload_too_large' }],
  ])('%s', (_name, raw, hinted, expected) => {
    expect(decodeBody(raw, hinted, LIMIT)).toMatchObject(expected);
  });
});
