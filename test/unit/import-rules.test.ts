import { describe, expect, it } from 'vitest';
import { hostKey } from '../../src/config/hosts.js';
import { bindingProblem, resumeCommand, sharedProjectProblem, shellWord, testFirstProblem, type ConfiguredProject } from '../../src/import/import-rules.js';
import { nextStep, type ProjectProgress } from '../../src/import/next-step.js';
import { pickFault, type CaptureFaults } from '../../src/sandbox/capture/capture-faults.js';

const target = { name: 'prod', role: 'production', host: 'https://eu.i.posthog.com' };
const bound = (over: Partial<{ host: string; role: string; delivered: number; deadLetters: number }> = {}) => ({
  host: 'https://eu.i.posthog.com',
  role: 'production',
  delivered: 10,
  deadLetters: 0,
  ...over,
});

describe('bindingProblem', () => {
  it.each([
    ['never imported', undefined, undefined],
    ['same host and role', bound(), undefined],
    ['host changed after deliveries', bound({ host: 'https://us.i.posthog.com' }), /was imported to https:\/\/us\.i\.posthog\.com, but the config now points it to https:\/\/eu/],
    // Dead letters are not acceptance: a host that refused everything can be corrected.
    ['host changed after dead letters only', bound({ host: 'https://us.i.posthog.com', delivered: 0, deadLetters: 1 }), undefined],
    ['the same host written another way', bound({ host: 'HTTPS://EU.I.POSTHOG.COM:443/' }), undefined],
    ['host changed before anything was accepted', bound({ host: 'https://us.i.posthog.com', delivered: 0 }), undefined],
    ['role changed after deliveries', bound({ role: 'test' }), /imported as a test project, but the config now says production/],
  ])('%s', (_name, record, expected) => {
    const problem = bindingProblem(record, target);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
  });
});

describe('hostKey', () => {
  it.each([
    ['http://localhost:8010', 'http://127.0.0.1:8010', true],
    ['http://[::1]:8010/', 'http://127.0.0.1:8010', true],
    ['https://EU.i.posthog.com/', 'https://eu.i.posthog.com:443', true],
    ['http://localhost', 'http://127.0.0.1:80', true],
    ['http://127.0.0.1:8010', 'http://127.0.0.1:8011', false],
    ['https://eu.i.posthog.com', 'https://us.i.posthog.com', false],
    ['https://ph.example.com/ingest', 'https://ph.example.com', false],
  ])('%s and %s: same place %s', (a, b, same) => {
    expect(hostKey(a) === hostKey(b)).toBe(same);
  });
});

describe('sharedProjectProblem', () => {
  const test = (over: Partial<ConfiguredProject> = {}): ConfiguredProject => ({ name: 'test', role: 'test', host: 'https://eu.i.posthog.com', apiKey: 'phc_T', projectId: '1', ...over });
  const prod = (over: Partial<ConfiguredProject> = {}): ConfiguredProject => ({ name: 'prod', role: 'production', host: 'https://eu.i.posthog.com', apiKey: 'phc_P', projectId: '2', ...over });
  it.each<[string, string, ConfiguredProject[], RegExp | undefined]>([
    ['two projects', 'prod', [test(), prod()], undefined],
    ['one key, into production', 'prod', [test({ apiKey: 'phc_P' }), prod()], /projects "test" \(test\) and "prod" \(production\) of the config have the same project API key/],
    ['one key, into test', 'test', [test({ apiKey: 'phc_P' }), prod()], /same project API key/],
    ['one host and project id', 'test', [test({ projectId: '2', host: 'https://EU.i.posthog.com/' }), prod()], /name the same PostHog project \(https:\/\/eu\.i\.posthog\.com, project 2\)/],
    ['one project id on two hosts', 'test', [test({ projectId: '2', host: 'https://us.i.posthog.com' }), prod()], undefined],
    ['keys that cannot be read are not compared', 'prod', [test({ apiKey: undefined }), prod({ apiKey: undefined, projectId: undefined })], undefined],
    ['two test projects may share a key', 'test', [test(), test({ name: 'test2' })], undefined],
    ['an unrelated pair does not block', 'test', [test(), prod(), test({ name: 'other', apiKey: 'phc_X' }), prod({ name: 'prod2', apiKey: 'phc_X' })], undefined],
  ])('%s', (_name, target, projects, expected) => {
    const problem = sharedProjectProblem(target, projects);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
    expect(problem ?? '').not.toContain('phc_');
  });
});

describe('nextStep', () => {
  const p = (name: string, role: 'test' | 'production', pending: number, delivered: number, deadLetters = 0): ProjectProgress => ({ name, role, pending, delivered, deadLetters });
  it.each<[string, ProjectProgress, ProjectProgress[], string | undefined]>([
    ['a sample left events pending', p('test', 'test', 2033, 1000), [p('test', 'test', 2033, 1000), p('prod', 'production', 3033, 0)], 'migrate import --project test (2,033 events still pending)'],
    ['dead letters on the project', p('test', 'test', 0, 2990, 10), [], expect.stringContaining('migrate import --project test --retry-dead-letters')],
    ['test complete, production not', p('test', 'test', 0, 3000), [p('test', 'test', 0, 3000), p('prod', 'production', 3000, 0)], 'migrate import --project prod'],
    ['test complete, production complete', p('test', 'test', 0, 3000), [p('test', 'test', 0, 3000), p('prod', 'production', 0, 3000)], 'migrate verify --project prod'],
    ['production complete', p('prod', 'production', 0, 3000), [], 'migrate verify --project prod'],
    ['test complete, no production in the config', p('test', 'test', 0, 3000), [p('test', 'test', 0, 3000)], undefined],
  ])('%s', (_name, current, projects, expected) => {
    expect(nextStep(current, projects)).toEqual(expected);
  });

  it('names the staging file and config when they are not the defaults, in every command it suggests', () => {
    const place = { staging: '/data/my migration.db', config: '/etc/migrate/prod.json' };
    const where = "--staging '/data/my migration.db' --config /etc/migrate/prod.json";
    expect(nextStep(p('test', 'test', 5, 1), [], place)).toBe(`migrate import --project test ${where} (5 events still pending)`);
    expect(nextStep(p('test', 'test', 0, 1, 1), [], place)).toBe(
      `look at the dead letters (\`migrate status --staging '/data/my migration.db'\`); once their cause is fixed, send them again: migrate import --project test --retry-dead-letters ${where}`,
    );
    expect(nextStep(p('prod', 'production', 0, 1), [], place)).toBe(`migrate verify --project prod ${where}`);
  });
});

describe('testFirstProblem', () => {
  it.each([
    ['test project, nothing yet', 'test', [], false, false],
    ['production before any test', 'production', [], false, true],
    ['production after a test import', 'production', [{ name: 'test' }], false, false],
    ['production with the override', 'production', [], true, false],
  ])('%s', (_name, role, accepted, override, refused) => {
    expect(testFirstProblem(role, accepted, override) !== undefined).toBe(refused);
  });
});

describe('resumeCommand', () => {
  it.each([
    ['/tmp/m.db', undefined, 'test', 'migrate resume --project test --staging /tmp/m.db'],
    ["/tmp/my dir/it's.db", undefined, 'prod', "migrate resume --project prod --staging '/tmp/my dir/it'\\''s.db'"],
    ['./migration.db', 'migrate.config.json', 'test', 'migrate resume --project test'],
    ['/tmp/m.db', '/tmp/c.json', 'test', 'migrate resume --project test --staging /tmp/m.db --config /tmp/c.json'],
  ])('%s', (staging, config, project, expected) => {
    expect(resumeCommand({ staging, config }, project)).toBe(expected);
  });
  it('leaves plain words alone', () => expect(shellWord('a-b_c.d')).toBe('a-b_c.d'));
});

describe('pickFault', () => {
  const faults: CaptureFaults = { error500: 0.1, error503: 0.1, error429: 0.1, error429RetryAfter: 0.1, retryAfterSeconds: 3, drop: 0.05, loseAnswer: 0.05 };
  it.each([
    [0.0, { type: 'status', status: 500 }],
    [0.15, { type: 'status', status: 503 }],
    [0.25, { type: 'status', status: 429 }],
    [0.35, { type: 'status', status: 429, retryAfterSeconds: 3 }],
    [0.42, { type: 'drop' }],
    [0.47, { type: 'lose-answer' }],
    [0.5, undefined],
    [0.99, undefined],
  ])('draw %f', (draw, expected) => {
    expect(pickFault(faults, () => draw)).toEqual(expected);
  });
  it('injects nothing without faults', () => expect(pickFault({}, () => 0)).toBeUndefined());
});
