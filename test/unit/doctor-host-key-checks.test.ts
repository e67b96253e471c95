/** Checks 1 to 3 of doctor (host, project key, test and production apart), on tables of gathered facts. */
import { describe, expect, it } from 'vitest';
import { hostCheck } from '../../src/doctor/checks/host-check.js';
import { keyCheck } from '../../src/doctor/checks/key-check.js';
import { separationCheck } from '../../src/doctor/checks/separation-check.js';
import type { ConfiguredProject, KeyFacts, Probe, ProbeAnswer } from '../../src/doctor/doctor-facts.js';
import { sharedProjectProblem } from '../../src/import/import-rules.js';

const HOST = 'https://us.i.posthog.com';
const answer = (status: number, contentType: string, bodyStart: string, location?: string): Probe => ({
  type: 'answer',
  answer: { status, contentType, bodyStart, ...(location !== undefined ? { location } : {}) } satisfies ProbeAnswer,
});

describe('host check', () => {
  it.each<[string, Probe, 'ok' | 'warning' | 'problem', RegExp]>([
    [
      'PostHog today (JSON)',
      answer(400, 'application/json', '{"status":400,"code":"empty_batch","error":"request holds no event"}'),
      'ok',
      /is a PostHog ingestion endpoint: it answered an empty batch with HTTP 400, application\/json/,
    ],
    ['older PostHog (plain text)', answer(400, 'text/plain', 'request holds no event'), 'ok', /HTTP 400, text\/plain, body: request holds no event/],
    ['capture checked the key first', answer(401, 'text/plain', 'API key is not valid: no project has this token'), 'ok', /answers as PostHog's capture does/],
    [
      'the web app',
      answer(200, 'text/html; charset=utf-8', '<!DOCTYPE html><html><head><title>PostHog</title>'),
      'problem',
      /HTTP 200, text\/html; charset=utf-8, body: <!DOCTYPE html>.*an HTML page: the web app's address/,
    ],
    [
      'a login redirect',
      answer(302, 'text/html', '', 'https://example.com/login?next=/batch/'),
      'problem',
      /HTTP 302, text\/html, location: https:\/\/example.com\/login\?next=\/batch\/, empty body.*a redirect/,
    ],
    ['a server that accepts anything', answer(200, 'application/json', '{"status":"Ok"}'), 'problem', /a success for a batch with no event/],
    ['a 400 that is an HTML page', answer(400, 'text/html', '<html><body>Bad Request: empty</body></html>'), 'problem', /an HTML page/],
    ['a 404', answer(404, 'application/json', '{"detail":"Not found."}'), 'problem', /not the answer PostHog's capture gives/],
    ['busy', answer(503, 'application/json', '{"error":"transient error, please retry"}'), 'warning', /is busy or down \(HTTP 503/],
    ['unreachable', { type: 'unreachable', reason: 'network error ECONNREFUSED: connect ECONNREFUSED' }, 'problem', /cannot reach https:\/\/us.i.posthog.com: network error ECONNREFUSED/],
  ])('%s', (_name, probe, verdict, message) => {
    const result = hostCheck({ host: HOST, emptyBatch: probe });
    expect(result.verdict).toBe(verdict);
    expect(result.message).toMatch(message);
    expect(result.fix !== undefined).toBe(verdict !== 'ok');
  });

  it('shows the first 200 characters of a body at most, and says when an app host was mapped', () => {
    const long = 'x'.repeat(200);
    const result = hostCheck({ host: HOST, configuredHost: 'https://us.posthog.com', emptyBatch: answer(200, 'text/html', long) });
    expect(result.message).toContain(`body: ${long},`);
    expect(result.message).toContain("(configured as https://us.posthog.com, PostHog's app host, mapped to its ingestion host)");
  });
});

describe('project key check', () => {
  const KEY = 'phc_configured';
  const project = { id: 1, name: 'Test', apiToken: KEY };
  const other = { id: 2, name: 'Production', apiToken: 'phc_other' };

  it.each<[string, KeyFacts, 'ok' | 'warning' | 'problem', RegExp]>([
    ['the API confirms the key', { via: 'api', configuredKey: KEY, projectId: '1', project }, 'ok', /the key of project "Test" \(id 1\), as its API says/],
    ['the API and the ingestion host both know the key', { via: 'api', configuredKey: KEY, projectId: '1', project, flags: answer(200, 'application/json', '{"flags":{}}') }, 'ok', /as its API says/],
    [
      'the API knows the key, the ingestion host does not (another PostHog)',
      { via: 'api', configuredKey: KEY, projectId: '1', project, flags: answer(401, 'text/plain', 'invalid') },
      'problem',
      /the ingestion host does not: its flags endpoint answered HTTP 401.*"host" and "apiHost" are not the same PostHog/,
    ],
    ['the API knows the key, flags cannot say', { via: 'api', configuredKey: KEY, projectId: '1', project, flags: { type: 'unreachable', reason: 'timeout' } }, 'ok', /as its API says/],
    [
      'the key of the other project',
      { via: 'api', configuredKey: 'phc_other', projectId: '1', project, others: [project, other] },
      'problem',
      /not the key of project "Test" \(id 1\).*it is the key of project "Production" \(id 2\)/,
    ],
    ['a key of no visible project', { via: 'api', configuredKey: 'phc_typo', projectId: '1', project, others: [project, other] }, 'problem', /belongs to no project the personal key can see/],
    ['projects cannot be listed', { via: 'api', configuredKey: 'phc_typo', projectId: '1', project }, 'problem', /cannot list projects to say whose key it is/],
    [
      'flags knows the key',
      { via: 'flags', why: 'no personal API key is configured', probe: answer(200, 'application/json', '{"errorsWhileComputingFlags":false,"flags":{},"requestId":"x"}') },
      'ok',
      /flags endpoint knows the project key \(one flag request; no personal API key is configured/,
    ],
    [
      'flags does not know the key',
      { via: 'flags', why: 'no personal API key', probe: answer(401, 'text/plain', 'The provided API key is invalid or has expired.') },
      'problem',
      /PostHog does not know the project key \(capture may still answer 200 to it and drop every event\): its flags endpoint answered HTTP 401/,
    ],
    ['flags is not there', { via: 'flags', why: 'no personal API key', probe: answer(404, 'text/html', '<html>') }, 'warning', /could not be checked: the flags endpoint answered HTTP 404/],
    [
      'host not usable',
      { via: 'flags', why: 'no personal API key', probe: { type: 'not-sent', reason: 'the host is not a PostHog ingestion endpoint' } },
      'warning',
      /was not checked: the host is not/,
    ],
    [
      'the API misses the project, flags knows the key',
      { via: 'api-failed', projectId: '9', status: 404, message: 'Project not found.', flags: answer(200, 'application/json', '{"flags":{}}') },
      'warning',
      /could not read project 9 \(404: Project not found.\); PostHog's flags endpoint knows/,
    ],
    [
      'the API misses the project, flags refuses the key',
      { via: 'api-failed', projectId: '9', status: 404, message: 'Project not found.', flags: answer(401, 'text/plain', 'invalid') },
      'problem',
      /could not read project 9.*PostHog does not know the project key/,
    ],
  ])('%s', (_name, facts, verdict, message) => {
    const result = keyCheck(facts);
    expect(result.verdict).toBe(verdict);
    expect(result.message).toMatch(message);
    expect(result.message).not.toContain(KEY);
  });
});

describe('test and production apart', () => {
  const target = { name: 'test', role: 'test' as const, host: HOST, projectId: '1', apiKey: 'phc_test' };
  const prod = (fields: Partial<ConfiguredProject>): ConfiguredProject => ({ name: 'prod', role: 'production', host: HOST, projectId: '2', apiKey: 'phc_prod', ...fields });

  it.each<[string, ConfiguredProject[], 'ok' | 'warning' | 'problem', RegExp]>([
    ['different keys and ids', [prod({})], 'ok', /"test" \(test, project 1\) and "prod" \(production, project 2\) are different projects: their keys and project ids differ/],
    ['different keys, no ids', [prod({ projectId: undefined })], 'ok', /their keys differ$/],
    ['the same key', [prod({ apiKey: 'phc_test' })], 'problem', /have the same project API key: they are one PostHog project/],
    ['the same project id on the same host', [prod({ projectId: '1' })], 'problem', /name the same PostHog project \(https:\/\/us.i.posthog.com, project 1\)/],
    ['the same project id on another host', [prod({ projectId: '1', host: 'https://eu.i.posthog.com' })], 'ok', /different projects/],
    [
      'a key that cannot be read',
      [prod({ apiKey: { unavailable: 'environment variable PROD_KEY is not set' } })],
      'warning',
      /the key of "prod" \(environment variable PROD_KEY is not set\) could not be read/,
    ],
    ['no production project', [{ ...prod({}), name: 'staging', role: 'test' }], 'ok', /no production project in the config/],
  ])('%s', (_name, others, verdict, message) => {
    const result = separationCheck({ target, others });
    expect(result.verdict).toBe(verdict);
    expect(result.message).toMatch(message);
  });

  it('sharedProjectProblem compares only test with production', () => {
    const a = { name: 'a', role: 'test' as const, host: HOST, apiKey: 'phc_same' };
    expect(sharedProjectProblem('a', [a, { ...a, name: 'b' }])).toBeUndefined();
    expect(sharedProjectProblem('a', [a, { ...a, name: 'b', role: 'production' }])).toMatch(/same project API key/);
    expect(
      sharedProjectProblem('a', [
        { ...a, apiKey: undefined },
        { ...a, name: 'b', role: 'production', apiKey: undefined },
      ]),
    ).toBeUndefined();
  });
});
