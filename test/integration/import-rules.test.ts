/** The safety rules and reports of import, resume and status, through the built CLI. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { FAST, SAMPLE_EVENTS, deliveredCount, readStaging, stageSample } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

describe('import rules', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  it('refuses production before a test import; a sample on test unlocks it; the override is recorded', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = await stageSample(dir);
    const base = ['--staging', staging, '--config', config, ...FAST];

    const refused = await runCli(['import', '--project', 'prod', ...base], { cwd: dir });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('error: importing into a production project before any test project accepted part of this staging file');
    expect(refused.stderr).toContain('Rehearse first: migrate import --project test --sample 1000');
    expect(storedEvents(sandbox, 2)).toHaveLength(0);

    const sample = await runCli(['import', '--project', 'test', '--sample', '250', ...base], { cwd: dir });
    expect(sample.code, sample.stderr).toBe(0);
    expect(sample.stdout).toContain('This was a sample of at most 250 events; the rest stays pending.');
    expect(sample.stdout).toContain('Next: migrate import --project test (2,750 events still pending)');
    expect(storedEvents(sandbox, 1)).toHaveLength(250);

    const prod = await runCli(['import', '--project', 'prod', ...base], { cwd: dir });
    expect(prod.code, prod.stderr).toBe(0);
    expect(storedEvents(sandbox, 2)).toHaveLength(SAMPLE_EVENTS);

    const other = tempDir();
    const otherStaging = await stageSample(other);
    const override = await runCli(['import', '--project', 'prod', '--skip-test-first', '--staging', otherStaging, '--config', config, ...FAST], { cwd: other });
    expect(override.code, override.stderr).toBe(0);
    const status = await runCli(['status', '--staging', otherStaging], { cwd: other });
    expect(status.stdout).toMatch(/prod: imported without a test import first \(--skip-test-first, \d{4}-/);
    expect(readStaging(otherStaging, (db) => db.prepare('SELECT skip_test_first AS s FROM import_runs').all())).toEqual([{ s: 1 }]);
  });

  it('refuses to send a project to another host once it accepted events there', async () => {
    const first = await sandboxAt();
    const second = await sandboxAt();
    const dir = tempDir();
    const staging = await stageSample(dir);
    const config = writeSandboxConfig(dir, first);
    const sample = await runCli(['import', '--project', 'test', '--sample', '10', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(sample.code, sample.stderr).toBe(0);
    writeSandboxConfig(dir, second);
    for (const args of [
      ['import', '--project', 'test'],
      ['import', '--project', 'test', '--dry-run'],
    ]) {
      const moved = await runCli([...args, '--staging', staging, '--config', config, ...FAST], { cwd: dir });
      expect(moved.code, args.join(' ')).toBe(6);
      expect(moved.stderr).toContain(`error: project "test" of this staging file was imported to ${first.url}, but the config now points it to ${second.url}`);
    }
    expect(storedEvents(second, 1)).toHaveLength(0);
  });

  it('--dry-run reports chunks and a sample payload and sends nothing', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = await stageSample(dir);
    const result = await runCli(['import', '--project', 'test', '--dry-run', '--chunk-events', '500', '--staging', staging, '--config', config, '--json'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ project: 'test', host: sandbox.url, pending: SAMPLE_EVENTS, events: SAMPLE_EVENTS, concurrency: 4, maxRatePerSec: 0, gzip: true });
    expect(report.chunks).toBeGreaterThanOrEqual(42); // one UTC day or less per chunk
    expect(report.samplePayload).toMatchObject({
      api_key: '<project API key>',
      historical_migration: true,
      batch: [{ event: 'signed_up', distinct_id: 'user_1001', timestamp: '2025-09-01T00:10:32.975Z' }, {}],
    });
    expect(sandbox.capture.stats.requests).toBe(0);
    expect(readStaging(staging, (db) => db.prepare('SELECT count(*) AS n FROM projects').get())).toEqual({ n: 0 });
  });

  it('resume continues the named project or says there is nothing to do', async () => {
    const sandbox = await sandboxAt({ capture: { faults: { error503: 1 } } });
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = await stageSample(dir);
    const stopped = await runCli(['import', '--project', 'test', '--staging', staging, '--config', config, '--retry-budget-ms', '3', ...FAST], { cwd: dir });
    expect(stopped.code).toBe(5);
    expect(stopped.stderr).toContain('Resume when the server is healthy: migrate resume --project test\n');
    const status = await runCli(['status', '--staging', staging], { cwd: dir });
    expect(status.stdout).toMatch(/test\s+test\s+\S+\s+0\s+3,000\s+0\s+stopped\n {2}test: continue with `migrate resume --project test`\n/);
    expect((await runCli(['resume', '--project', 'prod', '--staging', staging], { cwd: dir })).stdout).toContain('Nothing to resume for project prod');
  });

  it('resume reuses the run options and finishes a sample where it stopped', async () => {
    let requests = 0;
    let kill: (() => void) | undefined;
    const sandbox = await sandboxAt({ capture: { onRequest: () => ++requests === 3 && kill?.() } });
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = await stageSample(dir);
    const { startCli } = await import('../helpers/run-cli.js');
    const run = startCli(['import', '--project', 'test', '--sample', '700', '--chunk-events', '50', '--concurrency', '1', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    kill = () => run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    const resumed = await runCli(['resume', '--staging', staging, '--quiet'], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(deliveredCount(staging, 'test')).toBe(700);
    expect(new Set(storedEvents(sandbox, 1).map((e) => e.uuid)).size).toBe(700);
  });
});
