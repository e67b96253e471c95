/** Which answers move the pace: only those that mean the server is loaded. */
import { describe, expect, it } from 'vitest';
import { congestionOf } from '../../src/delivery/delivery-pace.js';
import { readerCongestionOf } from '../../src/source-apis/reader-pace.js';
import { classifyOutcome } from '../../src/http/classify-outcome.js';
import type { HttpOutcome } from '../../src/http/http-outcome.js';

const answer = (status: number, headers: Record<string, string> = {}): HttpOutcome => ({
  type: 'response',
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: Buffer.from('{"error":"x"}'),
});

describe('congestionOf', () => {
  it.each([
    ['a 429', answer(429), 'throttled'],
    ['a 429 with Retry-After', answer(429, { 'retry-after': '2' }), 'throttled'],
    ['a 503 with Retry-After (a server shedding load)', answer(503, { 'retry-after': '2' }), 'unavailable'],
    ["a bare 503 (PostHog's sink error, random)", answer(503), undefined],
    ['a 500', answer(500), undefined],
    ['a 200', answer(200), undefined],
    ['no answer in time', { type: 'timeout', afterMs: 30_000 } satisfies HttpOutcome, 'slow'],
  ])('%s -> %s', (_, outcome, expected) => {
    expect(congestionOf(classifyOutcome(outcome, 0), outcome)).toBe(expected);
  });
});

describe('readerCongestionOf (the source APIs)', () => {
  it.each([
    ['a 429', answer(429), 'throttled'],
    ['a bare 503 (a vendor under load)', answer(503), 'unavailable'],
    ['a 500', answer(500), undefined],
    ['a 200', answer(200), undefined],
    ['no answer in time (an export thinking)', { type: 'timeout', afterMs: 300_000 } satisfies HttpOutcome, undefined],
  ])('%s -> %s', (_, outcome, expected) => {
    expect(readerCongestionOf(classifyOutcome(outcome, 0), outcome)).toBe(expected);
  });
});
