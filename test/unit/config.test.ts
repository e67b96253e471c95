import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { resolveIngestion, resolveManagement } from '../../src/config/resolve-project.js';
import { normaliseBaseUrl, toIngestionUrl } from '../../src/config/hosts.js';
import { resolveAmplitude, resolveMixpanel } from '../../src/config/resolve-source.js';
import { redact } from '../../src/util/redact.js';
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

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['region in upper case', { role: 'test', region: 'EU' }, { region: 'eu' }],
    ['region in mixed case', { role: 'test', region: 'Us' }, { region: 'us' }],
    ['role in any case', { role: 'Production', region: 'us' }, { role: 'production' }],
  ])('accepts a choice whatever its case, kept in lower case: %s', (_name, project, expected) => {
    expect(parse({ projects: { a: project } }).projects.a).toMatchObject(expected);
  });

  it('resolves a region written in upper case to its hosts', () => {
    const config = parse({ projects: { a: { role: 'test', region: 'EU', apiKey: 'phc_abc', projectId: 1, personalApiKey: 'phx_abc' } } });
    expect(resolveIngestion(config, 'a', {}).host).toBe('https://eu.i.posthog.com');
    expect(resolveManagement(config, 'a', {}).apiHost).toBe('https://eu.posthog.com');
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

describe('sources', () => {
  const sources = {
    mixpanel: { projectId: 3141592, username: 'migrate.sa', secretEnv: 'MIXPANEL_SECRET', region: 'eu' },
    amplitude: { apiKey: 'ampkey0123456789', secretKeyEnv: 'AMPLITUDE_SECRET_KEY' },
  };

  it('accepts the documented shape, with or without projects', () => {
    expect(parse({ sources }).sources?.mixpanel).toEqual({ projectId: '3141592', username: 'migrate.sa', secretEnv: 'MIXPANEL_SECRET', region: 'eu' });
    expect(parse({ sources }).projects).toEqual({});
    expect(parse({ ...good, sources }).sources?.amplitude?.apiKey).toBe('ampkey0123456789');
  });

  it.each<[string, unknown, string]>([
    ['no secret', { mixpanel: { projectId: '1', username: 'u' } }, 'sources.mixpanel.secretEnv: give "secretEnv" (an environment variable holding it) or "secret"'],
    ['both secret forms', { mixpanel: { projectId: '1', secret: 's', secretEnv: 'S' } }, 'sources.mixpanel.secretEnv: give "secret" or "secretEnv", not both'],
    ['unknown region', { mixpanel: { projectId: '1', secret: 's', region: 'us-west' } }, 'sources.mixpanel.region:'],
    ['no project id', { mixpanel: { secret: 's' } }, 'sources.mixpanel.projectId:'],
    ['plain http off loopback', { amplitude: { apiKey: 'k', secretKey: 's', apiHost: 'http://proxy.example.com' } }, 'sources.amplitude.apiHost: plain http is only allowed for loopback hosts'],
    ['typo', { amplitude: { apiKey: 'k', secretkey: 's', secretKeyEnv: 'S' } }, 'sources.amplitude:'],
    ['unknown source', { heap: {} }, 'sources:'],
  ])('%s', (_name, value, message) => {
    expect(errorOf(() => parse({ sources: value }))).toContain(message);
  });

  it('accepts source regions whatever their case', () => {
    const parsed = parse({ sources: { mixpanel: { projectId: 1, secret: 's', region: 'IN' }, amplitude: { apiKey: 'k', secretKey: 's', region: 'EU' } } }).sources;
    expect([parsed?.mixpanel?.region, parsed?.amplitude?.region]).toEqual(['in', 'eu']);
  });

  it('resolves hosts by region, Basic credentials, and the settings to name', () => {
    const config = parse({ sources });
    const mixpanel = resolveMixpanel(config, 'migrate.config.json', { MIXPANEL_SECRET: 'mp-s3cret-value' });
    expect(mixpanel).toEqual({
      source: 'mixpanel-api:3141592',
      projectId: '3141592',
      baseUrl: 'https://data-eu.mixpanel.com',
      queryBaseUrl: 'https://eu.mixpanel.com',
      groupProfiles: {},
      authorization: `Basic ${Buffer.from('migrate.sa:mp-s3cret-value').toString('base64')}`,
      credentialSettings: 'sources.mixpanel.username and sources.mixpanel.secretEnv (MIXPANEL_SECRET) in migrate.config.json, for project 3141592',
    });
    expect(redact(`${mixpanel.authorization} mp-s3cret-value`)).toBe('Basic [redacted] [redacted]');
    const amplitude = resolveAmplitude(config, 'migrate.config.json', { AMPLITUDE_SECRET_KEY: 'amplitude-s3cret-key' });
    expect(amplitude.baseUrl).toBe('https://amplitude.com');
    expect(amplitude.source).toMatch(/^amplitude-api:[0-9a-f]{12}$/);
    expect(amplitude.source).not.toContain('ampkey');
    expect(redact('amplitude-s3cret-key')).toBe('[redacted]');
  });

  it('names what is missing', () => {
    expect(errorOf(() => resolveMixpanel(parse({ sources }), 'c.json', {}))).toBe('sources.mixpanel.secretEnv: environment variable MIXPANEL_SECRET is not set');
    expect(errorOf(() => resolveAmplitude(parse(good), 'c.json', {}))).toBe('no "sources.amplitude" in c.json');
    const projectSecret = parse({ sources: { mixpanel: { projectId: '7', secret: 'legacy-api-secret' } } });
    expect(resolveMixpanel(projectSecret, 'c.json', {}).authorization).toBe(`Basic ${Buffer.from('legacy-api-secret:').toString('base64')}`);
  });
});
