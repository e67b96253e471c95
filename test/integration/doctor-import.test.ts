/**
 * The preflight through the built CLI: import runs doctor's checks before a project's first
 * chunk, once per staging file and project, and stops on a problem before anything is sent (a
 * typo'd key on a host that accepts any token, an organization over its billing limit, a disk
 * too small); export-source refuses a disk too small for what it would stage.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxPersonalKey } from '../../src/sandbox/api/management-seed.js';
import { runCli } from '../helpers/run-cli.js';
import { sandboxTokens, storedEvents, useSandbox } from '../helpers/sandbox.js';
import { FAST, SAMPLE_CSV, SAMPLE_EVENTS, deliveredCount, readStaging, stageSample } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const TYPO_KEY = 'phc_TypoTypoTypoTypoTypoTypoTypoTypoTypoTypo12';

function writeConfig(dir: string, projects: Record<string, Record<string, unknown>>): string {
  const file = join(dir, 'migrate.config.json');
  writeFileSync(file, JSON.stringify({ projects }, null, 2));
  return file;
}

describe('import runs the preflight', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  it("a typo'd key on a host that accepts any token: stopped before anything is sent; --skip-preflight shows what it prevents", async () => {
    const sandbox = await sandboxAt({ capture: { faults: { unknownTokens: 'accept-and-drop' } } });
    const dir = tempDir();
    const config = writeConfig(dir, { test: { role: 'test', host: sandbox.url, apiKey: TYPO_KEY } });
    const staging = await stageSample(dir);
    const base = ['import', '--project', 'test', '--staging', staging, '--config', config, ...FAST];

    const stopped = await runCli(base, { cwd: dir });
    expect(stopped.code).toBe(10);
    expect(stopped.stderr).toContain('test: preflight problem (project-key): PostHog does not know the project key (capture may still answer 200 to it and drop every event)');
    expect(stopped.stderr).toContain('error: the preflight of project "test" found 1 problem; nothing was sent');
    expect(stopped.stderr).toContain('Full report: migrate doctor --project test');
    expect(stopped.stderr + stopped.stdout).not.toContain(TYPO_KEY);
    expect(sandbox.capture.stats.answers).toEqual({ 400: 1 }); // the empty batch, nothing else
    expect(sandbox.capture.stats.dropped.unknownToken).toBe(0);
    expect(storedEvents(sandbox, 1)).toHaveLength(0);
    const status = await runCli(['status', '--staging', staging], { cwd: dir });
    expect(status.stdout).toContain('Not imported anywhere yet');
    expect(status.stdout).toMatch(/  test: preflight failed \d{4}-\S+ \(1 problem, 2 warnings\): `migrate doctor --project test`/);

    // What the preflight prevents: every chunk acknowledged with 200, every event dropped.
    const blind = await runCli([...base, '--skip-preflight'], { cwd: dir });
    expect(blind.code, blind.stderr).toBe(0);
    expect(blind.stderr).toContain('test: preflight skipped (--skip-preflight); recorded in the staging file');
    expect(deliveredCount(staging, 'test')).toBe(SAMPLE_EVENTS);
    expect(sandbox.capture.stats.dropped.unknownToken).toBe(SAMPLE_EVENTS);
    expect(storedEvents(sandbox, 1)).toHaveLength(0);
    expect((await runCli(['status', '--staging', staging], { cwd: dir })).stdout).toMatch(/  test: preflight skipped \(--skip-preflight, \d{4}-/);
  });

  it("a host that is not the apiHost's PostHog: doctor and the preflight ask the ingestion host about the key too", async () => {
    const ingestion = await sandboxAt({ capture: { faults: { unknownTokens: 'accept-and-drop' } } });
    const api = await sandboxAt();
    const dir = tempDir();
    const owner = sandboxPersonalKey(api.store, 'owner-all');
    const config = writeConfig(dir, { test: { role: 'test', host: ingestion.url, apiHost: api.url, apiKey: sandboxTokens(api).test, projectId: 1, personalApiKey: owner } });
    const staging = await stageSample(dir);

    const doctor = await runCli(['doctor', '--project', 'test', '--staging', staging, '--config', config], { cwd: dir });
    expect(doctor.code).toBe(10);
    expect(doctor.stdout + doctor.stderr).toContain('the API knows the project key as the key of project "Test project" (id 1), but the ingestion host does not: its flags endpoint answered HTTP 401');
    expect(doctor.stdout + doctor.stderr).not.toContain('No problem found');

    const stopped = await runCli(['import', '--project', 'test', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(stopped.code).toBe(10);
    expect(stopped.stderr).toContain('"host" and "apiHost" are not the same PostHog');
    expect(deliveredCount(staging, 'test')).toBe(0);
    expect(ingestion.capture.stats.dropped.unknownToken).toBe(0);
  });

  it('runs once per staging file and project, records its verdicts, and stays quiet when all is well', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const tokens = sandboxTokens(sandbox);
    const owner = sandboxPersonalKey(sandbox.store, 'owner-all');
    const config = writeConfig(dir, {
      test: { role: 'test', host: sandbox.url, apiKey: tokens.test, projectId: 1, personalApiKey: owner },
      prod: { role: 'production', host: sandbox.url, apiKey: tokens.prod, projectId: 2, personalApiKey: owner },
    });
    const staging = await stageSample(dir);
    const base = ['--staging', staging, '--config', config, ...FAST];
    const sample = await runCli(['import', '--project', 'test', '--sample', '10', ...base], { cwd: dir });
    expect(sample.code, sample.stderr).toBe(0);
    expect(sample.stderr).toBe('');
    const rest = await runCli(['import', '--project', 'test', ...base], { cwd: dir });
    expect(rest.code, rest.stderr).toBe(0);
    expect(sandbox.capture.stats.answers['400']).toBe(1);
    const prod = await runCli(['import', '--project', 'prod', ...base], { cwd: dir });
    expect(prod.code, prod.stderr).toBe(0);
    expect(sandbox.capture.stats.answers['400']).toBe(2);
    const records = readStaging(staging, (db) => db.prepare('SELECT project, outcome, problems, warnings, checks FROM preflights ORDER BY id').all()) as Array<{
      project: string;
      outcome: string;
      checks: string;
    }>;
    expect(records.map((r) => [r.project, r.outcome])).toEqual([
      ['test', 'passed'],
      ['prod', 'passed'],
    ]);
    expect((JSON.parse(records[0]!.checks) as Array<{ check: string; verdict: string }>).map((c) => c.verdict)).toEqual(Array(10).fill('ok'));
    const status = await runCli(['status', '--staging', staging], { cwd: dir });
    expect(status.stdout).toMatch(/  test: preflight passed \d{4}-\S+\n  prod: preflight passed \d{4}-/);
  });

  it('an organization over its billing limit: stopped at the billing check, nothing sent', async () => {
    const sandbox = await sandboxAt({ capture: { faults: { overQuota: true } } });
    const dir = tempDir();
    const tokens = sandboxTokens(sandbox);
    const config = writeConfig(dir, { test: { role: 'test', host: sandbox.url, apiKey: tokens.test, projectId: 1, personalApiKey: sandboxPersonalKey(sandbox.store, 'owner-all') } });
    const staging = await stageSample(dir);
    const result = await runCli(['import', '--project', 'test', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(result.code).toBe(10);
    expect(result.stderr).toContain('test: preflight problem (billing): 3,000 events staged; the organization has used 0 of its limit of 0 events');
    expect(sandbox.capture.stats.dropped.overQuota).toBe(0);
  });
});

describe('a disk too small', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();
  const mounted: string[] = [];
  afterEach(() => {
    for (const dir of mounted.splice(0)) execFileSync('umount', [dir]);
  });

  /** A tmpfs of `size` at a new directory, or undefined where mounting is refused (not root, CI). */
  function tmpfs(size: string): string | undefined {
    const dir = join(tempDir(), 'small-disk');
    mkdirSync(dir);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    } catch {
      return undefined;
    }
    mounted.push(dir);
    return dir;
  }

  it('export-source refuses to stage onto it', async (context) => {
    // Large enough for a new staging file's schema (about 1.5 MB with its write-ahead log), too small for the sample.
    const disk = tmpfs('2m');
    if (disk === undefined) return context.skip('mounting a tmpfs is not allowed here');
    const result = await runCli(['export-source', '--from', 'csv', SAMPLE_CSV, '--staging', join(disk, 'migration.db'), '--quiet'], { cwd: disk });
    expect(result.code).toBe(10);
    expect(result.stderr).toMatch(
      /error: \d+(\.\d)? (KiB|MiB) free next to the staging file \(.*small-disk\), and staging these sources needs about 8\.\d MiB: the disk would fill up; nothing was staged/,
    );
    expect(readStaging(join(disk, 'migration.db'), (db) => db.prepare('SELECT count(*) AS n FROM events').get())).toEqual({ n: 0 });
  });

  it('import stops at the disk check before sending', async (context) => {
    const disk = tmpfs('2m');
    if (disk === undefined) return context.skip('mounting a tmpfs is not allowed here');
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const tokens = sandboxTokens(sandbox);
    const config = writeConfig(dir, { test: { role: 'test', host: sandbox.url, apiKey: tokens.test } });
    const staging = join(disk, 'migration.db');
    copyFileSync(await stageSample(dir), staging);
    const result = await runCli(['import', '--project', 'test', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(result.code).toBe(10);
    expect(result.stderr).toMatch(/test: preflight problem \(disk\): .* free next to .*small-disk; the import's delivery records need about 8\.\d MiB: the staging file would fill the disk/);
    expect(storedEvents(sandbox, 1)).toHaveLength(0);
  });
});
