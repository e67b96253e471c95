/** What each answer of the two export APIs means for its range, and the requests they are asked with. Table-driven. */
import { describe, expect, it } from 'vitest';
import type { SourceApiTarget } from '../../src/config/resolve-source.js';
import { classifyOutcome } from '../../src/http/classify-outcome.js';
import type { HttpOutcome } from '../../src/http/http-outcome.js';
import { parseDay, parseHour } from '../../src/source-apis/api-ranges.js';
import { AMPLITUDE_EXPORT } from '../../src/source-apis/amplitude-export-api.js';
import { MIXPANEL_EXPORT } from '../../src/source-apis/mixpanel-export-api.js';

const target: SourceApiTarget & { projectId: string } = {
  source: 'mixpanel-api:42',
  projectId: '42',
  baseUrl: 'https://data-eu.mixpanel.com',
  authorization: 'Basic dXNlcjpzZWNyZXQ=',
  credentialSettings: 'sources.mixpanel.username and sources.mixpanel.secretEnv (MP_SECRET) in migrate.config.json, for project 42',
};

function answer(status: number, body = '', headers: Record<string, string> = {}): HttpOutcome {
  return { type: 'response', status, headers, body: Buffer.from(body) };
}

const day = { first: parseDay('2024-03-05')!, last: parseDay('2024-03-05')! };
const oneHour = { first: parseHour('20240305T09', 'start')!, last: parseHour('20240305T09', 'start')! };
const dayOfHours = { first: parseHour('20240305T00', 'start')!, last: parseHour('20240305T23', 'start')! };

describe('Mixpanel raw export', () => {
  it('asks for one day of one project, in milliseconds, gzipped', () => {
    expect(MIXPANEL_EXPORT.request(target, day)).toEqual({
      url: 'https://data-eu.mixpanel.com/api/2.0/export?from_date=2024-03-05&to_date=2024-03-05&project_id=42&time_in_ms=true',
      headers: { authorization: target.authorization, accept: 'text/plain', 'accept-encoding': 'gzip' },
    });
  });

  it.each<[string, HttpOutcome, unknown]>([
    ['200', answer(200), { type: 'data' }],
    [
      '401',
      answer(401, '{"error": "Invalid credentials"}'),
      { type: 'stop', kind: 'auth', message: `Mixpanel refused the credentials (HTTP 401: Invalid credentials); check ${target.credentialSettings}` },
    ],
    ['403', answer(403, '{"error": "no access"}'), { type: 'stop', kind: 'auth' }],
    [
      '400',
      answer(400, '{"request": "/api/2.0/export", "error": "invalid project_id"}'),
      { type: 'stop', kind: 'remote', message: 'Mixpanel refused the request for 2024-03-05 (HTTP 400: invalid project_id); check sources.mixpanel.projectId' },
    ],
    ['404', answer(404, 'Not Found'), { type: 'stop', kind: 'remote', message: 'no Mixpanel export API at https://data-eu.mixpanel.com (HTTP 404); check sources.mixpanel.region or apiHost' }],
    ['a redirect', answer(302, '', { location: 'https://elsewhere.example/' }), { type: 'stop', kind: 'remote' }],
    ['503 after the retries', answer(503, 'down'), { type: 'failed', message: 'Mixpanel kept failing for 2024-03-05 (HTTP 503: down)' }],
  ])('%s', (_name, outcome, expected) => {
    const status = outcome.type === 'response' ? outcome.status : undefined;
    expect(MIXPANEL_EXPORT.judge(classifyOutcome(outcome, 0), status, day, target)).toMatchObject(expected as object);
    expect(MIXPANEL_EXPORT.splitsOn(status, day)).toBe(false);
  });

  it('limits requests to 60 an hour and 3 a second, or none', () => {
    expect(MIXPANEL_EXPORT.limits(60)).toEqual([
      { max: 60, windowMs: 3_600_000 },
      { max: 3, windowMs: 1000 },
    ]);
    expect(MIXPANEL_EXPORT.limits(0)).toEqual([]);
  });
});

describe('Amplitude Export API', () => {
  it('asks for inclusive hours', () => {
    expect(AMPLITUDE_EXPORT.request({ ...target, baseUrl: 'https://analytics.eu.amplitude.com' }, dayOfHours).url).toBe(
      'https://analytics.eu.amplitude.com/api/2/export?start=20240305T00&end=20240305T23',
    );
  });

  it.each<[string, HttpOutcome, typeof oneHour, unknown]>([
    ['200', answer(200), dayOfHours, { type: 'data' }],
    ['404: no data there', answer(404, 'No data'), dayOfHours, { type: 'empty' }],
    ['400 on a day: too large', answer(400, 'too large'), dayOfHours, { type: 'split', reason: 'HTTP 400: too large' }],
    [
      '400 on one hour',
      answer(400, 'too large'),
      oneHour,
      {
        type: 'failed',
        message: expect.stringContaining("Amplitude refused the hour 20240305T09 as too large to export at once (HTTP 400: too large); export that hour with Amplitude's Amazon S3 export"),
      },
    ],
    ['504 on a day (answered as is)', answer(504, 'Gateway Timeout'), dayOfHours, { type: 'split' }],
    ['504 on one hour, after the retries', answer(504, 'Gateway Timeout'), oneHour, { type: 'failed', message: 'Amplitude kept failing for 20240305T09 (HTTP 504: Gateway Timeout)' }],
    ['401', answer(401, 'Invalid API key'), dayOfHours, { type: 'stop', kind: 'auth' }],
    ['405', answer(405, ''), dayOfHours, { type: 'stop', kind: 'remote' }],
  ])('%s', (_name, outcome, span, expected) => {
    const status = outcome.type === 'response' ? outcome.status : undefined;
    expect(AMPLITUDE_EXPORT.judge(classifyOutcome(outcome, 0), status, span, target)).toEqual(expect.objectContaining(expected as object));
  });

  it('splits rather than retries a gateway timeout on a range of several hours', () => {
    expect(AMPLITUDE_EXPORT.splitsOn(504, dayOfHours)).toBe(true);
    expect(AMPLITUDE_EXPORT.splitsOn(504, oneHour)).toBe(false);
    expect(AMPLITUDE_EXPORT.splitsOn(503, dayOfHours)).toBe(false);
  });
});
