import { describe, expect, it } from 'vitest';
import { bindingProblem, resumeCommand, shellWord, testFirstProblem } from '../../src/import/import-rules.js';
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
    ['host changed after dead letters only', bound({ host: 'https://us.i.posthog.com', delivered: 0, deadLetters: 1 }), /config now points/],
    ['host changed before anything was accepted', bound({ host: 'https://us.i.posthog.com', delivered: 0 }), undefined],
    ['role changed after deliveries', bound({ role: 'test' }), /imported as a test project, but the config now says production/],
  ])('%s', (_name, record, expected) => {
    const problem = bindingProblem(record, target);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
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
    ['/tmp/m.db', 'test', 'migrate resume --staging /tmp/m.db --project test'],
    ["/tmp/my dir/it's.db", 'prod', "migrate resume --staging '/tmp/my dir/it'\\''s.db' --project prod"],
  ])('%s', (staging, project, expected) => {
    expect(resumeCommand(staging, project)).toBe(expected);
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
