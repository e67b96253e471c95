/**
 * Stops that respect the user: SIGHUP (a closed terminal or SSH session) is a clean interrupt
 * that records every accepted chunk, removes the lock and leaves a line in `<staging>.log`
 * saying how to resume; a second Ctrl-C does not wait for requests that hang. Signals are sent
 * on events (requests seen by the host, the staging file changing), never on a timer.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACK, useHostileHosts } from '../helpers/hostile-host.js';
import { REPO_ROOT, runCli, startCli } from '../helpers/run-cli.js';
import { useStagedTemplate, writeHostsConfig } from '../helpers/staged-template.js';
import { FAST, SAMPLE_EVENTS, deliveredCount, writerLock } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

describe('interrupts', () => {
  const tempDir = useTempDir();
  const hostAt = useHostileHosts();
  const staged = useStagedTemplate();

  it('SIGHUP: accepted chunks recorded, the lock removed, exit 130, and the log beside the staging file says how to resume', async () => {
    let answered = 0;
    // The first three chunks are acknowledged; later requests hang until the run gives them up.
    const host = await hostAt(() => (++answered <= 3 ? ACK : 'hang'));
    const dir = tempDir();
    const staging = staged(dir);
    const config = writeHostsConfig(dir, { test: host.url });
    const run = startCli(
      ['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, '--chunk-events', '100', '--concurrency', '1', '--interrupt-grace-ms', '100', ...FAST],
      { cwd: dir },
    );
    await host.requestsSeen(4);
    run.child.kill('SIGHUP');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(130);
    // The three acknowledged chunks (a chunk holds at most a UTC day) are recorded, the hanging one is not.
    const delivered = deliveredCount(staging, 'test');
    expect(delivered).toBe(host.acknowledged.size);
    const pending = (SAMPLE_EVENTS - delivered).toLocaleString('en-US');
    expect(result.stderr).toContain(`error: interrupted by SIGHUP: every chunk the server accepted is recorded; ${pending} events still pending`);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(writerLock(staging)).toBeUndefined();
    const log = readFileSync(`${staging}.log`, 'utf8');
    expect(log).toBe(
      `${log.slice(0, 24)} migrate import stopped: interrupted by SIGHUP: every chunk the server accepted is recorded; ${pending} events still pending\n  Resume with: migrate resume --project test\n`,
    );
    expect(log).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z /);
  });

  it('a second Ctrl-C does not wait for requests that hang: exit 130 at once, what was accepted recorded', async () => {
    let answered = 0;
    const host = await hostAt(() => (++answered <= 2 ? ACK : 'hang'));
    const dir = tempDir();
    const staging = staged(dir);
    const config = writeHostsConfig(dir, { test: host.url });
    // A grace period of ten minutes: only the second Ctrl-C can end this run before the test times out.
    const run = startCli(
      [
        'import',
        '--project',
        'test',
        '--skip-preflight',
        '--staging',
        staging,
        '--config',
        config,
        '--chunk-events',
        '100',
        '--concurrency',
        '2',
        '--interrupt-grace-ms',
        '600000',
        '--retry-initial-ms',
        '1',
      ],
      { cwd: dir },
    );
    await host.requestsSeen(4);
    run.child.kill('SIGINT');
    await new Promise<void>((resolve) => {
      run.child.stderr!.on('data', (text: Buffer) => {
        if (text.toString().includes('starting no new chunks')) resolve();
      });
    });
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain('again to stop waiting');
    const delivered = deliveredCount(staging, 'test');
    expect(delivered).toBe(host.acknowledged.size);
    expect(result.stderr).toContain(`error: interrupted by SIGINT: every chunk the server accepted is recorded; ${(SAMPLE_EVENTS - delivered).toLocaleString('en-US')} events still pending`);
    expect(writerLock(staging)).toBeUndefined();
  });

  it('SIGHUP during export-source: the file stays partial, and the log says the same command resumes it', async () => {
    const dir = tempDir();
    const file = join(dir, 'big.csv');
    execFileSync(process.execPath, [join(REPO_ROOT, 'bench/generate-source.mjs'), file, '100000']);
    const staging = join(dir, 'm.db');
    const run = startCli(['export-source', '--from', 'csv', file, '--workers', '1', '--staging', staging, '--quiet'], { cwd: dir });
    let changes = 0;
    const watcher = watch(dir, (_event, name) => {
      if (name === 'm.db-wal' && ++changes === 3) run.child.kill('SIGHUP');
    });
    const result = await run.done;
    watcher.close();
    expect(result.code, result.stderr).toBe(130);
    expect(existsSync(`${staging}.log`)).toBe(true);
    expect(readFileSync(`${staging}.log`, 'utf8')).toMatch(
      /migrate export-source stopped: interrupted while staging .*big\.csv: staged up to line \d+\n {2}Run the same command again: it resumes from there, and files already staged are recognised\.\n$/,
    );
    expect(writerLock(staging)).toBeUndefined();
  });
});
