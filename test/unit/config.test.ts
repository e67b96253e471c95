import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { resolveIngestion, resolveManagement } from '../../src/config/resolve-project.js';
import { normaliseBaseUrl, toIngestionUrl } from '../../src/config/hosts.js';
import { UsageError } from '../../src/errors.js';

const good = {
  projects: {
    test: { role: 'test', host: 'http://127.0.0.1:8010', apiKey: 'phc_testkey123' },
    prod: {
      role: 'production',
      region: 'us',
      apiKeyEnv: 'POSTHOG_PROD_API_KEY',
      apiHost: 'https://us.posthog.com',
      projectId: '12345',
      personalApiKeyEnv: 'POSTHOG_PERSONAL_API_KEY',
    },
  },
};

function parse(value: unknown) {
  return parseConfig(JSON.stringify(value), 'migrate.config.json');
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected an error');
}

describe('config validation', () => {
  it('accepts the documented shape', () => {
    expect(parse(good).projects.prod).toMatchObject({ role: 'production', region: 'us', projectId: '12345' });
  });

  it.each<[string, unknown, string]>([
    ['unknown role', { projects: { a: { role: 'staging', region: 'us' } } }, 'projects.a.role:'],
    ['no host or region', { projects: { a: { role: 'test' } } }, 'projects.a.host: give "host"'],
    ['host and region', { projects: { a: { role: 'test', region: 'us', host: 'https://x.example' } } }, 'projects.a.region: give "host" or "region", not both'],
    ['plain http off loopback', { projects: { a: { role: 'test', host: 'http://posthog.example.com' } } }, 'projects.a.host: plain http is only allowed for loopback hosts'],
    ['not a URL', { projects: { a: { role: 'test', host: 'nope' } } }, 'projects.a.host: "nope" is not a URL'],
    ['typo key', { projects: { a: { role: 'test', region: 'us', apikey: 'phc_1' } } }, 'projects.a:'],
    ['personal key as project key', { projects: { a: { role: 'test', region: 'us', apiKey: 'phx_abcdef123' } } }, 'projects.a.apiKey: this is a personal API key'],
    ['both key forms', { projects: { a: { role: 'test', region: 'us', apiKey: 'phc_1', apiKeyEnv: 'X' } } }, 'projects.a.apiKeyEnv: give "apiKey" or "apiKeyEnv", not both'],
    ['bad env name', { projects: { a: { role: 'test', region: 'us', apiKeyEnv: 'NOT-VALID' } } }, 'projects.a.apiKeyEnv: must be an environment variable name'],
  ])('%s', (_name, value, message) => {
    expect(errorOf(() => parse(value))).toContain(message);
  });

  it('never echoes a key in its messages', () => {
    expect(errorOf(() => parse({ projects: { a: { role: 'test', region: 'us', apiKey: 'phx_secretvalue99' } } }))).not.toContain('secretvalue99');
  });

  it('names invalid JSON', () => {
    expect(errorOf(() => parseConfig('{', 'c.json'))).toMatch(/^c\.json: not valid JSON/);
  });
});

describe('project resolution', () => {
  const config = parse(good);

  it('reads inline keys and maps regions to hosts', () => {
    expect(resolveIngestion(config, 'test', {})).toEqual({ name: 'test', role: 'test', host: 'http://127.0.0.1:8010', apiKey: 'phc_testkey123' });
    expect(resolveIngestion(config, 'prod', { POSTHOG_PROD_API_KEY: 'phc_prod' })).toMatchObject({ host: 'https://us.i.posthog.com' });
  });

  it('says which env var is missing', () => {
    expect(errorOf(() => resolveIngestion(config, 'prod', {}))).toContain('projects.prod.apiKeyEnv: environment variable POSTHOG_PROD_API_KEY is not set');
  });

  it('lists known projects for an unknown name', () => {
    expect(errorOf(() => resolveIngestion(config, 'staging', {}))).toContain('no project named "staging"');
  });

  it('resolves the management target', () => {
    expect(resolveManagement(config, 'prod', { POSTHOG_PERSONAL_API_KEY: 'phx_p' })).toEqual({
      name: 'prod',
      apiHost: 'https://us.posthog.com',
      projectId: '12345',
      personalApiKey: 'phx_p',
      ingestionHost: 'https://us.i.posthog.com',
    });
  });

  it('refuses a project key where the personal key belongs', () => {
    expect(errorOf(() => resolveManagement(config, 'prod', { POSTHOG_PERSONAL_API_KEY: 'phc_p' }))).toContain('is a project key');
  });
});

describe('hosts', () => {
  it.each<[string, string | RegExp]>([
    ['https://us.i.posthog.com/', 'https://us.i.posthog.com'],
    ['http://localhost:8010', 'http://localhost:8010'],
    ['http://127.0.0.1:8010/', 'http://127.0.0.1:8010'],
    ['http://[::1]:8010', 'http://[::1]:8010'],
    ['https://posthog.example.com/ingest/', 'https://posthog.example.com/ingest'],
    ['http://10.0.0.5:8000', /only allowed for loopback/],
    ['ftp://x.example', /must be an http\(s\) URL/],
    ['https://u:p@x.example', /credentials/],
  ])('%s', (input, expected) => {
    const result = normaliseBaseUrl(input);
    if (typeof expected === 'string') expect(result).toBe(expected);
    else expect((result as { error: string }).error).toMatch(expected);
  });

  it('maps app hosts to ingestion hosts', () => {
    expect(toIngestionUrl('https://us.posthog.com')).toBe('https://us.i.posthog.com');
    expect(toIngestionUrl('https://eu.posthog.com')).toBe('https://eu.i.posthog.com');
    expect(toIngestionUrl('https://app.posthog.com')).toBe('https://us.i.posthog.com');
    expect(toIngestionUrl('https://ph.example.com')).toBe('https://ph.example.com');
  });
});
