import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../src/http/server-answer.js';
import { describeApiError, describeStorageError, type ApiFailure } from '../../src/management/api-error-message.js';

const base: Omit<ApiFailure, 'status' | 'body'> = { method: 'GET', path: '/api/environments/1/exports/7/', projectName: 'test', projectId: '1' };
const body = (type: string, code: string, detail: string, attr: string | null = null) => JSON.stringify({ type, code, detail, attr });

describe('describeApiError', () => {
  it.each<[string, Partial<ApiFailure> & { status: number; body: string }, 'auth' | 'remote', string | RegExp]>([
    [
      'bad key',
      { status: 401, body: body('authentication_error', 'authentication_failed', 'Personal API key found in request Authorization header is invalid.') },
      'auth',
      'the personal API key is invalid: the API refused it (401 authentication_failed)',
    ],
    [
      'no credentials',
      { status: 401, body: body('authentication_error', 'not_authenticated', 'Authentication credentials were not provided.') },
      'auth',
      'the API says no credentials reached it (401 not_authenticated)',
    ],
    ['401 without a JSON body', { status: 401, body: 'Unauthorized' }, 'auth', 'the personal API key is invalid: the API refused it (401)'],
    [
      'missing scope',
      { status: 403, body: body('authentication_error', 'permission_denied', "API key missing required scope 'export:write'") },
      'auth',
      "the personal API key lacks the scope 'export:write' (403)",
    ],
    [
      'other permission',
      { status: 403, body: body('authentication_error', 'permission_denied', "You can't set your own access level.") },
      'auth',
      "permission denied (403): You can't set your own access level.",
    ],
    ['not found with a subject', { status: 404, what: 'export 7', body: body('invalid_request', 'not_found', 'Not found.') }, 'remote', 'export 7 was not found in project 1 (404: Not found.)'],
    [
      'not found without a subject',
      { status: 404, body: body('invalid_request', 'not_found', 'Not found.') },
      'remote',
      'GET /api/environments/1/exports/7/ was not found in project 1 (404: Not found.)',
    ],
    ['project not found', { status: 404, body: body('invalid_request', 'not_found', 'Project not found.') }, 'remote', 'project 1 was not found (404), or the key cannot see it'],
    [
      '400 with attr',
      { status: 400, body: body('validation_error', 'invalid_choice', '"15" is not a valid choice.', 'level') },
      'remote',
      'the API refused the request: level: "15" is not a valid choice. (400 invalid_choice)',
    ],
    [
      '400 without attr',
      { status: 400, body: body('validation_error', 'invalid_input', 'Either dashboard, insight or export_context is required for an export.') },
      'remote',
      'the API refused the request: Either dashboard, insight or export_context is required for an export. (400 invalid_input)',
    ],
    ['export failed', { status: 400, what: 'export 7', body: body('validation_error', 'export_failed', 'renderer crashed') }, 'remote', 'export 7 failed to render: renderer crashed'],
    ['400 plain text', { status: 400, body: '<h1>Bad Request</h1>' }, 'remote', 'the API refused the request (400): Bad Request'],
    [
      'throttled',
      { status: 429, body: body('throttled_error', 'throttled', 'Request was throttled. Expected available in 30 seconds.') },
      'remote',
      /kept throttling.*Expected available in 30 seconds/,
    ],
    ['server error', { status: 500, body: body('server_error', 'error', 'boom') }, 'remote', 'the API failed (500) for GET /api/environments/1/exports/7/: boom (error)'],
    ['bad gateway text', { status: 502, body: '' }, 'remote', 'the API failed (502) for GET /api/environments/1/exports/7/: no details'],
    ['odd status', { status: 418, body: 'teapot' }, 'remote', 'unexpected answer from the API (418) for GET /api/environments/1/exports/7/: teapot'],
    [
      'endpoint not found',
      { status: 404, body: body('invalid_request', 'not_found', 'Endpoint not found.') },
      'remote',
      'the API has no endpoint GET /api/environments/1/exports/7/ (404 Endpoint not found.)',
    ],
    ['a 404 page that is not the API', { status: 404, body: '<h1>Not Found</h1>' }, 'remote', 'the API has no endpoint GET /api/environments/1/exports/7/ (404)'],
    ['redirect without Location', { status: 302, body: '' }, 'remote', 'the API answered GET /api/environments/1/exports/7/ with a redirect (302) that has no Location'],
    [
      'redirect elsewhere',
      { status: 301, body: '', location: 'https://eu.posthog.com/api/environments/1/exports/7/' },
      'remote',
      /redirected GET .* to https:\/\/eu.posthog.com\/.* \(301\); the personal API key is not sent after a redirect/,
    ],
    [
      'names the host that answered',
      { status: 403, host: 'us.posthog.com', body: body('authentication_error', 'permission_denied', "API key missing required scope 'export:write'") },
      'auth',
      "the personal API key lacks the scope 'export:write' (403), answered by us.posthog.com",
    ],
    [
      'names the host of a 404',
      { status: 404, host: '127.0.0.1:8010', what: 'export 7', body: body('invalid_request', 'not_found', 'Not found.') },
      'remote',
      'export 7 was not found in project 1 (404: Not found.), answered by 127.0.0.1:8010',
    ],
  ])('%s', (_name, failure, kind, message) => {
    const described = describeApiError({ ...base, ...failure });
    expect(described.kind).toBe(kind);
    if (typeof message === 'string') expect(described.message).toBe(message);
    else expect(described.message).toMatch(message);
  });

  it('hints name the config project for key problems and the scope to add', () => {
    expect(describeApiError({ ...base, status: 401, body: '' }).hints.join(' ')).toContain('project "test"');
    const scope = describeApiError({ ...base, status: 403, body: body('authentication_error', 'permission_denied', "API key missing required scope 'group:read'") });
    expect(scope.hints.join(' ')).toContain("Add 'group:read' to the key");
  });
});

describe('describeStorageError', () => {
  it.each([
    [401, 'the storage host bucket.s3.amazonaws.com refused the download of export 7 (401); the signed link may have expired'],
    [403, 'the storage host bucket.s3.amazonaws.com refused the download of export 7 (403); the signed link may have expired'],
    [404, 'the storage host bucket.s3.amazonaws.com refused the download of export 7 (404); the signed link may have expired'],
    [302, 'the storage host bucket.s3.amazonaws.com answered the download of export 7 with another redirect (302), which is not followed'],
    [503, 'the storage host bucket.s3.amazonaws.com failed to serve export 7 (503)'],
  ])('%i', (status, message) => expect(describeStorageError(status, 'bucket.s3.amazonaws.com', 'export 7')).toBe(message));
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each<[string, Record<string, string>, string, number | undefined]>([
    ['Retry-After seconds', { 'retry-after': '12' }, '', 12_000],
    ['Retry-After fraction', { 'retry-after': '0.5' }, '', 500],
    ['Retry-After date', { 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }, '', 30_000],
    ['Retry-After date in the past', { 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }, '', 0],
    ['throttle detail', {}, body('throttled_error', 'throttled', 'Request was throttled. Expected available in 7 seconds.'), 7_000],
    ['header wins over detail', { 'retry-after': '3' }, body('throttled_error', 'throttled', 'Request was throttled. Expected available in 7 seconds.'), 3_000],
    ['nothing said', {}, body('throttled_error', 'throttled', 'Request was throttled.'), undefined],
    ['not JSON', {}, 'slow down', undefined],
  ])('%s', (_name, headers, text, expected) => expect(retryAfterMs(headers, text, now)).toBe(expected));
});
