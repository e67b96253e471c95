import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readCaptureBody } from '../../src/sandbox/capture/capture-body.js';

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const LIMITS = { maxReceivedBytes: 1000, maxBodyBytes: 5000 };

/** A body arriving in chunks, counting how many were read. */
function arriving(body: Buffer, chunkBytes = 64): { stream: Readable; pulled: () => number } {
  let offset = 0;
  let pulled = 0;
  const stream = new Readable({
    highWaterMark: 1,
    read() {
      if (offset >= body.length) return void this.push(null);
      pulled++;
      this.push(body.subarray(offset, offset + chunkBytes));
      offset += chunkBytes;
    },
  });
  return { stream, pulled: () => pulled };
}

describe('readCaptureBody', () => {
  it.each([
    ['plain JSON', utf8('{"a":"b"}'), false, { bytes: utf8('{"a":"b"}'), inflated: false }],
    ['gzip, recognised by its magic bytes', gzipSync(utf8('{"z":1}')), false, { bytes: utf8('{"z":1}'), inflated: true }],
    ['gzip, hinted', gzipSync(utf8('{"z":"ü"}')), true, { bytes: utf8('{"z":"ü"}'), inflated: true }],
    ['the received limit itself', utf8('x'.repeat(1000)), false, { bytes: utf8('x'.repeat(1000)), inflated: false }],
    ['an empty body', Buffer.alloc(0), false, { bytes: Buffer.alloc(0), inflated: false }],
    ['bad gzip', Buffer.from([0x1f, 0x8b, 0x08, 0, 1, 2, 3]), false, { status: 400, error: 'failed to decode request: invalid gzip data' }],
    ['hinted gzip that is not gzip', utf8('{"a":1}'), true, { status: 400, error: 'failed to decode request: invalid gzip data' }],
    ['over the received limit', utf8('x'.repeat(1001)), false, { status: 413, code: 'payload_too_large' }],
    ['over the decompressed limit once inflated', gzipSync(utf8('x'.repeat(5001))), false, { status: 413, code: 'payload_too_large' }],
    ['within both limits once inflated', gzipSync(utf8('x'.repeat(5000))), false, { bytes: utf8('x'.repeat(5000)), inflated: true }],
  ])('%s', async (_name, body, hinted, expected) => {
    expect(await readCaptureBody(arriving(body).stream, hinted, LIMITS)).toMatchObject(expected);
  });

  it('stops reading at the received limit (the rest is never read)', async () => {
    const source = arriving(utf8('x'.repeat(100_000)), 100);
    expect(await readCaptureBody(source.stream, false, LIMITS)).toMatchObject({ status: 413 });
    expect(source.pulled()).toBeLessThan(30);
  });

  it('for a plain body, the decompressed limit is the smaller one', async () => {
    const source = arriving(utf8('x'.repeat(3000)), 100);
    expect(await readCaptureBody(source.stream, false, { maxReceivedBytes: 10_000, maxBodyBytes: 2000 })).toMatchObject({ status: 413 });
    expect(source.pulled()).toBeLessThan(30);
  });

  it('inflates a large gzip body as it arrives and stops at the decompressed limit', async () => {
    // Random text compresses to more than the 1 MiB read in one piece: it streams.
    const text = randomBytes(2 * 1024 * 1024).toString('base64');
    const compressed = gzipSync(utf8(text), { level: 1 });
    expect(compressed.length).toBeGreaterThan(1024 * 1024);
    const limits = { maxReceivedBytes: 20 * 1024 * 1024, maxBodyBytes: text.length };
    const whole = await readCaptureBody(arriving(compressed, 65536).stream, false, limits);
    expect('bytes' in whole && whole.inflated && whole.bytes.equals(utf8(text))).toBe(true);
    const source = arriving(compressed, 65536);
    expect(await readCaptureBody(source.stream, false, { ...limits, maxBodyBytes: 1024 * 1024 })).toMatchObject({ status: 413 });
    expect(source.pulled()).toBeLessThan(Math.ceil(compressed.length / 65536));
  });

  it('ends with a problem, not a hang, when the stream breaks', async () => {
    const stream = new Readable({ read() {} });
    const reading = readCaptureBody(stream, false, LIMITS);
    stream.push(utf8('{"a":'));
    stream.destroy(new Error('connection reset'));
    expect(await reading).toMatchObject({ status: 400, error: 'failed to read request body' });
  });
});
