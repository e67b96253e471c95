/**
 * A first real migration without traps: what import and resume say and exit with follows the
 * staging file's state (nothing to resume, an unknown project, a test that accepted nothing, the
 * next step), hosts are compared as places, test and production must be two projects, and a
 * terminal of 0 columns never blocks the work.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sqlite/database.js';
import { CLI, runCli } from '../helpers/run-cli.js';
import { sandboxTokens, storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { useStagedTemplate, writeHostsConfig } from '../helpers/staged-template.js';
import { FAST, SAMPLE_CSV, SAMPLE_EVENTS } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

describe('import and resume follow the state', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();
  const staged = useStagedTemplate();

  it('resume of a project never imported says so (as JSON with --json); an unknown name lists the known ones', async () => {
    const dir = tempDir();
    const staging = staged(dir);
    writeHostsConfig(dir, { test: 'http://127.0.0.1:9', prod: 'http://127.0.0.1:9' });
    const text = await runCli(['resume', '--project', 'prod', '--staging', staging], { cwd: dir });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe('Nothing to resume for project prod: it was never imported from this staging file (start with `migrate import --project prod`).\n');
    const json = await runCli(['resume', '--project', 'prod', '--staging', staging, '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout)).toEqual({ type: 'nothing-to-resume', project: 'prod', reason: 'never-imported', message: expect.stringContaining('never imported') });
    // No project named and no import ever started (one killed during its checks records none): not "every import finished".
    const none = await runCli(['resume', '--staging', staging, '--json'], { cwd: dir });
    expect(JSON.parse(none.stdout)).toEqual({ type: 'nothing-to-resume', reason: 'never-imported', message: expect.stringContaining('no import was started from this staging file') });
    const typo = await runCli(['resume', '--project', 'prdo', '--staging', staging, '--json'], { cwd: dir });
    expect(typo.code).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toBe('error: no project named "prdo" in the staging file or the config\nKnown projects: test, prod.\n');
  });

  it('test and production with one project key are refused, naming both', async () => {
    const dir = tempDir();
    const staging = staged(dir);
    const key = 'phc_SharedProjectKey0123456789abcdefghijklmn';
    const config = writeHostsConfig(dir, { test: 'http://127.0.0.1:9', prod: 'http://127.0.0.1:9' }, { test: key, prod: key });
    for (const project of ['test', 'prod']) {
      const result = await runCli(['import', '--project', project, '--staging', staging, '--config', config, ...FAST], { cwd: dir });
      expect(result.code, project).toBe(6);
      expect(result.stderr).toContain('error: projects "test" (test) and "prod" (production) of the config have the same project API key');
      expect(result.stderr).not.toContain(key);
    }
  });

  it('localhost and 127.0.0.1 are one host: a project bound to one may be reached by the other', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const staging = staged(dir);
    const config = writeSandboxConfig(dir, sandbox);
    expect((await runCli(['import', '--project', 'test', '--sample', '10', '--staging', staging, '--config', config, ...FAST], { cwd: dir })).code).toBe(0);
    const { test } = sandboxTokens(sandbox);
    writeSandboxConfig(dir, sandbox, { test: { role: 'test', host: sandbox.url.replace('127.0.0.1', 'LOCALHOST') + '/', apiKey: test } });
    const moved = await runCli(['import', '--project', 'test', '--dry-run', '--staging', staging, '--config', config], { cwd: dir });
    expect(moved.code, moved.stderr).toBe(0);
  });

  it('a test project that only refused events unlocks nothing: the run exits non-zero and production is refused with a way out', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const staging = staged(dir);
    const config = writeSandboxConfig(dir, sandbox);
    // The first 40 events in send order, each refused for one of two reasons.
    const db = openDatabase(staging);
    const first = db.prepare('SELECT seq FROM events ORDER BY kind, timestamp_ms, seq LIMIT 40').all() as Array<{ seq: number }>;
    first.forEach(({ seq }, i) => db.prepare(i % 2 === 0 ? "UPDATE events SET distinct_id = '' WHERE seq = ?" : "UPDATE events SET event = '' WHERE seq = ?").run(seq));
    db.close();
    const base = ['--staging', staging, '--config', config, ...FAST];
    const sample = await runCli(['import', '--project', 'test', '--sample', '40', ...base], { cwd: dir });
    expect(sample.code).toBe(5);
    expect(sample.stderr).toContain('accepted none of the 40 events this run sent: every one was refused (dead letters)');
    expect(sample.stderr).toContain('migrate import --project test --retry-dead-letters');
    const prod = await runCli(['import', '--project', 'prod', ...base], { cwd: dir });
    expect(prod.code).toBe(6);
    expect(prod.stderr).toContain('Project "test" accepted nothing yet: its 40 events were refused (see `migrate status`). Fix the cause, then: migrate import --project test --retry-dead-letters');
    expect(storedEvents(sandbox, 2)).toHaveLength(0);
  });

  it('the next step follows the state: the rest of a sample, production after a complete test, verify after production', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const staging = staged(dir);
    const config = writeSandboxConfig(dir, sandbox);
    const base = ['--staging', staging, '--config', config, ...FAST];
    const sample = await runCli(['import', '--project', 'test', '--sample', '1000', ...base], { cwd: dir });
    expect(sample.stdout).toContain('Next: migrate import --project test (2,000 events still pending)');
    const rest = await runCli(['import', '--project', 'test', ...base], { cwd: dir });
    expect(rest.stdout).toContain('Next: migrate import --project prod');
    const prod = await runCli(['import', '--project', 'prod', ...base], { cwd: dir });
    expect(prod.stdout).toContain('Next: migrate verify --project prod');
    const again = await runCli(['import', '--project', 'test', ...base], { cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Next: migrate verify --project prod');
    expect(storedEvents(sandbox, 2)).toHaveLength(SAMPLE_EVENTS);
  });
});

describe('a terminal that reports 0 columns', () => {
  const tempDir = useTempDir();

  it('gets plain progress: export-source finishes without cursor escapes', (ctx) => {
    if (spawnSync('script', ['--version'], { stdio: 'ignore' }).status !== 0) return ctx.skip();
    const dir = tempDir();
    const staging = join(dir, 'm.db');
    const command = `stty cols 0; ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} export-source --from csv ${JSON.stringify(SAMPLE_CSV)} --staging ${JSON.stringify(staging)}`;
    const result = spawnSync('script', ['-qfec', command, '/dev/null'], { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '' } });
    expect(result.status, result.stdout).toBe(0);
    expect(result.stdout).toContain('3,000 new, 0 already staged');
    expect(result.stdout).not.toContain('\u001b[');
    expect(result.stdout.length).toBeLessThan(2000);
  });
});
