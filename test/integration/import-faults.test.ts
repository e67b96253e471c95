/**
 * The built CLI against a sandbox that misbehaves: transient faults, a small body limit, an
 * invalid event, a wrong key; and no key ever in output or in the staging file.
 */
import { readFileSync, existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sqlite/database.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { sandboxTokens, storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { FAST, SAMPLE_EVENTS, deliveredCount, readStaging, stageSample, stagedUuids } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

describe('import through faults', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  it('delivers everything through 20% 5xx, 10% 429 and 5% dropped connections', async () => {
    const sandbox = await sandboxAt({
      capture: { faults: { error500: 0.1, error503: 0.1, error429: 0.05, error429RetryAfter: 0.05, retryAfterSeconds: 0, drop: 0.05 }, random: seededRandom(11) },
    });
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = await stageSample(dir);
    const result = await runCli(['import', '--project', 'test', '--staging', staging, '--config', config, '--chunk-events', '40', ...FAST], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/3,000 events delivered in \d+ chunks \(\d+ requests, \d+ retries/);
    const answers = sandbox.capture.stats.answers;
    for (const status of ['500', '503', '429', 'dropped']) expect(answers[status], status).toBeGreaterThan(0);
    const stored = storedEvents(sandbox, 1);
    expect(new Set(stored.map((e) => e.uuid))).toEqual(new Set(stagedUuids(staging)));
    expect(stored).toHaveLength(SAMPLE_EVENTS);
    expect(deliveredCount(staging, 'test')).toBe(SAMPLE_EVENTS);
  });

  it('splits chunks answered 413 and delivers them all', async () => {
    const sandbox = await sandboxAt({ capture: { maxBodyBytes: 6000 } });
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = await stageSample(dir);
    const result = await runCli(['import', '--project', 'test', '--staging', staging, '--config', config, '--chunk-events', '200', '--retry-initial-ms', '1'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/split a chunk of [\d,]+ events after HTTP 413/);
    expect(sandbox.capture.stats.answers['413']).toBeGreaterThan(0);
    expect(storedEvents(sandbox, 1)).toHaveLength(SAMPLE_EVENTS);
  });

  it('dead-letters the one invalid event of a chunk with the server message and delivers the rest', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = await stageSample(dir);
    // An event the server refuses: PostHog answers 400 to an empty distinct_id.
    const db = openDatabase(staging);
    db.prepare("UPDATE events SET distinct_id = '' WHERE seq = 1234").run();
    db.close();
    const bad = stagedUuids(staging)[1233]!;
    const result = await runCli(['import', '--project', 'test', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('1 event refused by the server and kept as dead letters');
    const stored = storedEvents(sandbox, 1);
    expect(stored).toHaveLength(SAMPLE_EVENTS - 1);
    expect(stored.some((e) => e.uuid === bad)).toBe(false);

    const status = await runCli(['status', '--staging', staging, '--json'], { cwd: dir });
    const report = JSON.parse(status.stdout) as { projects: unknown[]; deadLetters: unknown[] };
    expect(report.projects).toEqual([expect.objectContaining({ name: 'test', delivered: SAMPLE_EVENTS - 1, pending: 0, deadLetters: 1 })]);
    expect(report.deadLetters).toEqual([expect.objectContaining({ uuid: bad, status: 400, message: 'event submitted without a distinct_id (missing_distinct_id)' })]);
    const text = await runCli(['status', '--staging', staging], { cwd: dir });
    expect(text.stdout).toMatch(/test\s+test\s+http:\/\/127\.0\.0\.1:\d+\s+2,999\s+0\s+1\s+done/);

    const again = await runCli(['import', '--project', 'test', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(again.stdout).toContain('0 events delivered');
    expect(storedEvents(sandbox, 1)).toHaveLength(SAMPLE_EVENTS - 1);
  });

  it.each([
    ['inline', (key: string) => ({ apiKey: key }), {}, 'projects.test.apiKey in'],
    ['from the environment', () => ({ apiKeyEnv: 'TEST_PROJECT_KEY' }), { TEST_PROJECT_KEY: 'phc_WrongKey1234567890abcdefWrongKey1234567890' }, 'the environment variable TEST_PROJECT_KEY'],
  ])('a wrong key (%s) stops at once, names the key, and marks nothing delivered', async (_name, keyFields, env, source) => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const wrong = 'phc_WrongKey1234567890abcdefWrongKey1234567890';
    const config = writeSandboxConfig(dir, sandbox, { test: { role: 'test', host: sandbox.url, ...keyFields(wrong) } });
    const staging = await stageSample(dir);
    // --skip-preflight: the preflight would stop this key first (doctor-import.test.ts); here delivery's own refusal is tested.
    const result = await runCli(['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, ...FAST], { cwd: dir, env });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(`error: ${sandbox.url} refused the project API key of project "test" (HTTP 401: API key is not valid: no project has this token (invalid_token))`);
    expect(result.stderr).toContain(`The key comes from ${source}`);
    // The staging file and config are the defaults in the working directory: the command names neither.
    expect(result.stderr).toContain('After fixing the key: migrate resume --project test\n');
    expect(result.stderr + result.stdout).not.toContain(wrong);
    expect(deliveredCount(staging, 'test')).toBe(0);
    expect(storedEvents(sandbox, 1)).toHaveLength(0);
  });

  it('refuses a personal key (phx_) as the project key before sending anything', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const personal = 'phx_PersonalKey1234567890abcdefPersonal12345';
    const config = writeSandboxConfig(dir, sandbox, { test: { role: 'test', host: sandbox.url, apiKeyEnv: 'K' } });
    const staging = await stageSample(dir);
    const result = await runCli(['import', '--project', 'test', '--staging', staging, '--config', config], { cwd: dir, env: { K: personal } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the project API key is a personal API key (phx_...)');
    expect(result.stderr).not.toContain(personal);
    expect(sandbox.capture.stats.requests).toBe(0);
  });

  it('never puts a key in output, errors or the staging file', async () => {
    const sandbox = await sandboxAt({ capture: { faults: { error503: 0.2, drop: 0.05 }, random: seededRandom(5) } });
    const { test, prod } = sandboxTokens(sandbox);
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = await stageSample(dir);
    const base = ['--staging', staging, '--config', config];
    const runs: CliResult[] = [];
    runs.push(await runCli(['import', '--project', 'test', '--sample', '100', '--dry-run', ...base], { cwd: dir }));
    runs.push(await runCli(['import', '--project', 'test', '--sample', '500', '--retry-initial-ms', '1', ...base], { cwd: dir }));
    runs.push(await runCli(['import', '--project', 'prod', '--retry-initial-ms', '1', '--json', ...base], { cwd: dir }));
    runs.push(await runCli(['import', '--project', 'test', '--retry-initial-ms', '1', '--retry-budget-ms', '0', ...base], { cwd: dir }));
    runs.push(await runCli(['resume', '--staging', staging, '--retry-initial-ms', '1'], { cwd: dir }));
    runs.push(await runCli(['status', '--staging', staging], { cwd: dir }));
    runs.push(await runCli(['status', '--staging', staging, '--json'], { cwd: dir }));
    for (const run of runs) {
      for (const key of [test, prod]) {
        expect(run.stdout).not.toContain(key);
        expect(run.stderr).not.toContain(key);
      }
    }
    expect(runs[0]!.stdout).toContain('"api_key": "<project API key>"');
    for (const suffix of ['', '-wal', '-shm']) {
      if (!existsSync(staging + suffix)) continue;
      const bytes = readFileSync(staging + suffix);
      for (const key of [test, prod]) expect(bytes.includes(Buffer.from(key)), `${suffix || 'db'} holds a key`).toBe(false);
      expect(bytes.includes(Buffer.from('phc_')), `${suffix || 'db'} holds a key prefix`).toBe(false);
    }
    // The sandbox's 503s are PostHog's sink error, at random: retried, never taken for load, so
    // they do not slow the pace down (cutting on them took this test from 2 s to 37 s).
    expect(runs[1]!.stdout).toContain('no request refused for load');
    // The stopped test run was resumed (with its recorded options), not started again.
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 5, 5, 0, 0]);
    expect(readStaging(staging, (db) => db.prepare('SELECT count(*) AS n FROM import_runs').get())).toEqual({ n: 3 });
  });
});
