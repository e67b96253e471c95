import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { extractPayload, type PayloadSource } from '../../src/sandbox/capture/capture-payload.js';
import { compressToLz64 } from '../helpers/lz-string-compress.js';

const JSON_TEXT = '[{"event":"e","distinct_id":"d","token":"phc_a","properties":{"q":"a+b é"}}]';
const FORM = 'application/x-www-form-urlencoded';
const b64 = (data: string | Buffer): string => Buffer.from(data).toString('base64');

function source(body: string | Buffer, over: Partial<Omit<PayloadSource, 'query'>> & { query?: string } = {}): PayloadSource {
  const { query, ...rest } = over;
  return {
    body: Buffer.from(body),
    inflated: false,
    query: new URLSearchParams(query ?? ''),
    contentType: 'application/json',
    contentEncoding: undefined,
    path: '/i/v0/e/',
    maxBodyBytes: 10_000,
    ...rest,
  };
}

describe('extractPayload: the forms PostHog SDKs send', () => {
  it.each([
    ['plain JSON', source(JSON_TEXT)],
    ['the whole body in base64', source(b64(JSON_TEXT))],
    ['a form with data as JSON', source(`data=${encodeURIComponent(JSON_TEXT)}`, { contentType: FORM })],
    ['a form with data in base64 (its + read as spaces), on /e/', source(`data=${b64(JSON_TEXT).replaceAll('+', ' ')}&compression=base64`, { contentType: FORM, path: '/e/' })],
    ['a form with data in lz64', source(`data=${encodeURIComponent(compressToLz64(JSON_TEXT))}&compression=lz64`, { contentType: FORM })],
    ['a form with ver before data', source(`ver=1.2.3&data=${encodeURIComponent(JSON_TEXT)}`, { contentType: FORM })],
    ['a form with data in lz64, hinted in the query', source(`data=${encodeURIComponent(compressToLz64(JSON_TEXT))}`, { contentType: FORM, query: 'compression=lz64' })],
    ['a form with data in lz64, hinted by Content-Encoding', source(`data=${encodeURIComponent(compressToLz64(JSON_TEXT))}`, { contentType: FORM, contentEncoding: 'lz64' })],
    ['gzip inside base64', source(b64(gzipSync(JSON_TEXT)))],
    ['data in the query', source('', { query: `data=${encodeURIComponent(JSON_TEXT)}` })],
    ['base64 still left after decoding, on /e/', source(b64(b64(JSON_TEXT)), { path: '/e/' })],
  ])('%s', (_name, from) => {
    const payload = extractPayload(from);
    expect(payload).toMatchObject({ text: JSON_TEXT });
    if (!('problem' in payload)) expect(payload.bytes.toString('utf8')).toBe(JSON_TEXT);
  });

  it('passes a plain body through without copying it', () => {
    const from = source(JSON_TEXT);
    expect(extractPayload(from)).toMatchObject({ bytes: from.body });
  });

  it.each([
    ['an empty body', source(''), 400, 'failed to decode request: empty payload'],
    ['a form body that is not a form', source(JSON_TEXT, { contentType: FORM }), 400, 'expected form data'],
    ['invalid UTF-8', source(Buffer.from([0x5b, 0xff, 0x5d])), 400, 'invalid UTF-8'],
    ['a lone surrogate as WTF-8 bytes', source(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])), 400, 'invalid UTF-8'],
    ['bad lz64', source('data=////&compression=lz64', { contentType: FORM }), 400, 'invalid lz64'],
    ['lz64 over the limit once decompressed', source(`data=${encodeURIComponent(compressToLz64('x'.repeat(20_000)))}&compression=lz64`, { contentType: FORM }), 413, 'exceeds the limit'],
    ['gzip in base64 over the limit', source(b64(gzipSync('x'.repeat(20_000)))), 413, 'exceeds the limit'],
    ['plain text over the limit', source(`[${'1,'.repeat(5001)}1]`), 413, 'exceeds the limit'],
  ])('refuses %s', (_name, from, status, error) => {
    const payload = extractPayload(from);
    expect(payload).toMatchObject({ problem: true, status });
    expect((payload as { error: string }).error).toContain(error);
  });

  it('leaves form data in base64 as it is off the legacy paths (/e/, /capture/), as capture does', () => {
    expect(extractPayload(source(`data=${b64('{"a":1}')}`, { contentType: FORM }))).toMatchObject({ text: b64('{"a":1}') });
  });

  it('keeps a byte order mark (JSON then refuses the body, as PostHog does)', () => {
    expect(extractPayload(source(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('[1]')])))).toMatchObject({ text: '\uFEFF[1]' });
  });
});
