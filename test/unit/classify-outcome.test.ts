import { describe, expect, it } from 'vitest';
import { classifyOutcome } from '../../src/http/classify-outcome.js';
import { parseRetryAfter, serverMessage } from '../../src/http/server-answer.js';
import type { HttpOutcome } from '../../src/http/http-outcome.js';

const NOW = Date.UTC(2025, 0, 1);

function response(status: number, body = '', headers: Record<string, string> = {}): HttpOutcome {
  return { type: 'response', status, headers, body: Buffer.from(body) };
}

describe('classifyOutcome', () => {
  const cases: Array<[string, HttpOutcome, Record<string, unknown>]> = [
    ['200 Ok', response(200, '{"status":"Ok"}'), { type: 'ok', status: 200 }],
    ['200 legacy status 1', response(200, '{"status":1}'), { type: 'ok' }],
    ['204', response(204), { type: 'ok' }],
    [
      '400 JSON error',
      response(400, '{"status":400,"code":"missing_distinct_id","error":"event submitted without a distinct_id"}'),
      { type: 'rejected', status: 400, message: 'event submitted without a distinct_id (missing_distinct_id)' },
    ],
    ['400 plain text', response(400, 'failed to parse request'), { type: 'rejected', message: 'failed to parse request' }],
    ['401', response(401, '{"error":"API key is not valid: personal api key"}'), { type: 'fatal', kind: 'auth', status: 401 }],
    ['403', response(403, 'forbidden'), { type: 'fatal', kind: 'auth', status: 403 }],
    ['404', response(404), { type: 'fatal', kind: 'endpoint', status: 404 }],
    ['405', response(405), { type: 'fatal', kind: 'endpoint', status: 405 }],
    ['301 with location', response(301, '', { location: 'https://elsewhere/batch/' }), { type: 'fatal', kind: 'endpoint' }],
    ['402', response(402, 'pay'), { type: 'fatal', kind: 'endpoint' }],
    ['408', response(408), { type: 'retry', afterMs: undefined }],
    ['413', response(413, 'too big'), { type: 'too-large' }],
    ['429 without Retry-After', response(429), { type: 'retry', afterMs: undefined }],
    ['429 Retry-After seconds', response(429, '', { 'retry-after': '7' }), { type: 'retry', afterMs: 7000 }],
    ['429 Retry-After date', response(429, '', { 'retry-after': new Date(NOW + 3000).toUTCString() }), { type: 'retry', afterMs: 3000 }],
    ['500', response(500), { type: 'retry' }],
    ['502', response(502), { type: 'retry' }],
    ['503 with Retry-After', response(503, '', { 'retry-after': '2' }), { type: 'retry', afterMs: 2000 }],
    ['599', response(599), { type: 'retry' }],
    ['network error', { type: 'network-error', code: 'ECONNRESET', message: 'socket hang up' }, { type: 'retry', afterMs: undefined }],
    ['timeout', { type: 'timeout', afterMs: 1000 }, { type: 'retry', reason: 'no answer within 1000 ms' }],
    ['aborted', { type: 'aborted' }, { type: 'fatal', kind: 'aborted' }],
  ];
  it.each(cases)('%s', (_name, outcome, expected) => {
    expect(classifyOutcome(outcome, NOW)).toMatchObject(expected);
  });
});

describe('parseRetryAfter', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['0', 0],
    ['1.5', 1500],
    ['120', 120_000],
    ['soon', undefined],
    [new Date(NOW - 5000).toUTCString(), 0],
  ])('%s -> %s', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });
});

describe('serverMessage', () => {
  it.each([
    ['', '(no message)'],
    ['{"detail":"Not found."}', 'Not found.'],
    ['{"message":"nope","code":"x"}', 'nope (x)'],
    ['  line one\n  line two ', 'line one line two'],
    ['x'.repeat(600), 'x'.repeat(500)],
  ])('%j', (body, expected) => {
    expect(serverMessage(Buffer.from(body))).toBe(expected);
  });
});
