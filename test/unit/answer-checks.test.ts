/**
 * Whether a whole 200 answer of a source API is an export: sampled as it arrives (gzip inflated
 * alongside, in pieces of any size), then judged. Table-driven.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { makeZip } from '../../scripts/zip-writer.mjs';
import { jsonLinesProblem, zipProblem } from '../../src/source-apis/answer-checks.js';
import { AnswerSampler, type AnswerSample } from '../../src/source-apis/answer-sample.js';

const LINES = '{"event":"a","properties":{"time":1}}\n{"event":"b","properties":{"time":2}}\n';
const HTML = '<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Please log in</body></html>\n';

/** The sample of `body` received in pieces of `piece` bytes. */
async function sampleOf(body: Buffer, piece = 7): Promise<AnswerSample> {
  const sampler = new AnswerSampler();
  for (let at = 0; at < body.length; at += piece) await sampler.add(body.subarray(at, at + piece));
  return sampler.finish();
}

describe('Mixpanel answers (JSON lines)', () => {
  it.each<[string, Buffer, RegExp | undefined]>([
    ['JSON lines', Buffer.from(LINES), undefined],
    ['gzipped JSON lines', gzipSync(LINES), undefined],
    ['an empty day', Buffer.alloc(0), undefined],
    ['an empty gzipped day', gzipSync(''), undefined],
    ['an HTML page', Buffer.from(HTML), /^an HTML page \("<!DOCTYPE html>"\), not an export$/],
    ['a gzipped HTML page', gzipSync(HTML), /^an HTML page/],
    ['an error object', Buffer.from('{"error": "Internal error, please retry"}'), /^an error in place of the data: "Internal error, please retry"$/],
    ['an error object with its request', Buffer.from('{"request": "/api/2.0/export", "error": "rate limited"}\n'), /^an error in place of the data: "rate limited"$/],
    ['lines cut in the middle of one', Buffer.from(LINES.slice(0, 50)), /^the answer ends in the middle of a line, after 50 bytes: cut short$/],
    ['gzipped lines cut in the middle of one', gzipSync(LINES.slice(0, 50)), /cut short$/],
    ['a gzip stream cut short', gzipSync(LINES).subarray(0, 30), /^the gzip answer does not inflate to its end \(unexpected end of file\)/],
    ['a JSON array', Buffer.from('[{"event":"a"}]\n'), /^not JSON lines \(it starts "\[\{\\"event\\":\\"a\\"\}\]"\)$/],
  ])('%s', async (_name, body, problem) => {
    const found = jsonLinesProblem(await sampleOf(body));
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });

  it('keeps only the first bytes of a large answer, and its last byte', async () => {
    const body = Buffer.from(LINES.repeat(5000));
    const sample = await sampleOf(gzipSync(body), 64 * 1024);
    expect(sample).toMatchObject({ gzip: true, contentBytes: body.length, lastByte: 0x0a });
    expect(sample.head).toHaveLength(4096);
  });
});

describe('Amplitude answers (zip)', () => {
  it.each<[string, Buffer, RegExp | undefined]>([
    ['a zip archive', makeZip([{ name: 'p/p_2025-09-01_9#0.json.gz', data: gzipSync(LINES) }]), undefined],
    ['an HTML page', Buffer.from(HTML), /^an HTML page/],
    ['an error object', Buffer.from('{"error": "Internal error, please retry"}'), /^an error in place of the data/],
    ['an empty answer', Buffer.alloc(0), /^an empty answer, not a zip archive$/],
    ['plain text', Buffer.from('Service Unavailable'), /^not a zip archive \(it starts "Service Unavailable"\)$/],
  ])('%s', async (_name, body, problem) => {
    const found = zipProblem(await sampleOf(body));
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });
});
