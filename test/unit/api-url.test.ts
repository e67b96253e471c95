import { describe, expect, it } from 'vitest';
import { apiUrl, checkApiUrl, checkDownloadUrl, hostOf, isAbsoluteHttpUrl } from '../../src/management/api-url.js';

describe('apiUrl', () => {
  it.each([
    ['https://us.posthog.com', '/api/projects/', {}, 'https://us.posthog.com/api/projects/'],
    [
      'http://127.0.0.1:8000',
      '/api/environments/1/groups/',
      { group_type_index: 0, search: 'a b&c', cursor: undefined },
      'http://127.0.0.1:8000/api/environments/1/groups/?group_type_index=0&search=a+b%26c',
    ],
    ['https://example.com/posthog', '/api/projects/', {}, 'https://example.com/posthog/api/projects/'],
  ])('%s + %s', (host, path, query, expected) => expect(apiUrl(host, path, query)).toBe(expected));
});

describe('checkApiUrl', () => {
  it.each([
    ['https://us.posthog.com/api/projects/?offset=100', 'https://us.posthog.com'],
    ['http://127.0.0.1:8000/api/environments/1/groups/?cursor=abc', 'http://127.0.0.1:8000'],
    ['https://example.com/posthog/api/projects/', 'https://example.com/posthog'],
    ['HTTP://127.0.0.1:8000/api/projects/?offset=100', 'http://127.0.0.1:8000'],
    ['https://US.PostHog.com/api/projects/', 'https://us.posthog.com'],
    ['https://us.posthog.com/api/projects/', 'HTTPS://US.POSTHOG.COM'],
  ])('allows %s for %s', (url, host) => expect(checkApiUrl(url, host)).toMatchObject({ ok: true }));

  it.each([
    ['another host', 'https://evil.example/api/projects/', 'https://us.posthog.com', /is not the configured API host/],
    ['another port', 'http://127.0.0.1:9999/api/projects/', 'http://127.0.0.1:8000', /is not the configured API host/],
    ['http instead of https', 'http://us.posthog.com/api/projects/', 'https://us.posthog.com', /is not the configured API host/],
    ['the ingestion host', 'https://us.i.posthog.com/api/projects/', 'https://us.posthog.com', /is not the configured API host/],
    ['an ingestion path on the same host', 'http://127.0.0.1:8000/batch/', 'http://127.0.0.1:8000', /outside \/api\//],
    ['outside the base path', 'https://example.com/other/api/projects/', 'https://example.com/posthog', /outside \/posthog\/api\//],
    ['credentials in the link', 'https://user:pw@us.posthog.com/api/projects/', 'https://us.posthog.com', /carries credentials/],
    ['not a URL', '/api/projects/', 'https://us.posthog.com', /is not a URL/],
  ])('refuses %s', (_name, url, host, reason) => {
    const check = checkApiUrl(url, host);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(reason);
  });
});

describe('checkDownloadUrl', () => {
  it.each([
    ['https://bucket.s3.amazonaws.com/export.png?sig=1', 'https://us.posthog.com/api/environments/1/exports/1/content/', 'https://bucket.s3.amazonaws.com/export.png?sig=1'],
    ['http://127.0.0.1:9000/x.png', 'http://127.0.0.1:8000/api/', 'http://127.0.0.1:9000/x.png'],
    ['/files/x.png', 'https://us.posthog.com/api/environments/1/exports/1/content/', 'https://us.posthog.com/files/x.png'],
  ])('follows %s', (location, from, expected) => expect(checkDownloadUrl(location, from)).toEqual({ ok: true, url: expected }));

  it.each([
    ['http://storage.example.com/x.png', 'https://us.posthog.com/api/'],
    ['ftp://storage.example.com/x.png', 'https://us.posthog.com/api/'],
  ])('refuses %s', (location, from) => expect(checkDownloadUrl(location, from).ok).toBe(false));
});

describe('isAbsoluteHttpUrl', () => {
  it.each([
    ['http://127.0.0.1/api/', true],
    ['HTTP://127.0.0.1/api/', true],
    ['Https://us.posthog.com/api/', true],
    ['/api/projects/', false],
    ['ftp://x/api/', false],
    ['api/projects/', false],
  ])('%s -> %s', (text, expected) => expect(isAbsoluteHttpUrl(text)).toBe(expected));
});

describe('hostOf', () => {
  it.each([
    ['http://127.0.0.1:8000/api/x', '127.0.0.1:8000'],
    ['HTTPS://US.PostHog.com/api/', 'us.posthog.com'],
    ['not a url', 'not a url'],
  ])('%s -> %s', (url, expected) => expect(hostOf(url)).toBe(expected));
});
