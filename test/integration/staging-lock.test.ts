/**
 * One staging file, one writer, whatever the path: the lock is held by the file itself, so a
 * symlink or a hard link to it is refused while an import runs, a lock left by a killed
 * process is taken over, and two processes finding the same dead holder cannot both win.
 * `status` tells a running import from a killed one.
 */
import { spawnSync } from 'node:child_process';
import { linkSync, symlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sqlite/database.js';
import { useHostileHosts } from '../helpers/hostile-host.js';
import { runCli, startCli } from '../helpers/run-cli.js';
import { useStagedTemplate, writeHostsConfig } from '../helpers/staged-template.js';
import { FAST, SAMPLE_EVENTS, deliveredCount, writerLock } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the staging lock', () => {
  const tempDir = useTempDir();
  const hostAt = useHostileHosts();
  const hangingHost = () => hostAt(() => 'hang');
  const staged = useStagedTemplate();

  // One running import for both kinds of second name: a symlink first, then a hard link.
  it('covers every path to the file: a symlink is refused while an import runs, status through it says it runs; a file with two names (hard links) is not written through either while the import runs, nor after', async () => {
    const host = await hangingHost();
    const dir = tempDir();
    const staging = staged(dir);
    const config = writeHostsConfig(dir, { test: host.url });
    const symlink = join(dir, 'via-symlink.db');
    symlinkSync(staging, symlink);
    const first = startCli(['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    await host.requestsSeen(1);
    const second = await runCli(['import', '--project', 'test', '--skip-preflight', '--staging', symlink, '--config', config, ...FAST], { cwd: dir });
    expect(second.code).toBe(7);
    expect(second.stderr).toContain(`error: ${symlink} is in use by process ${first.child.pid} (migrate import, started `);
    expect(second.stderr).not.toMatch(/^\s+at /m);
    const status = await runCli(['status', '--staging', symlink], { cwd: dir });
    expect(status.stdout).toMatch(new RegExp(`test\\s+test\\s+\\S+\\s+0\\s+3,000\\s+0\\s+running \\(process ${first.child.pid}, migrate import\\)`));

    const hardLink = join(dir, 'via-hard-link.db');
    linkSync(staging, hardLink);
    for (const path of [hardLink, staging]) {
      const third = await runCli(['import', '--project', 'test', '--skip-preflight', '--staging', path, '--config', config, ...FAST], { cwd: dir });
      expect(third.code, path).toBe(7);
      expect(third.stderr).toContain(`error: ${path} has 2 names (hard links): SQLite keeps its write-ahead log and lock beside each name`);
      expect(third.stderr).not.toMatch(/^\s+at /m);
    }
    host.release();
    const done = await first.done;
    expect(done.code, done.stderr).toBe(0);
    expect(deliveredCount(staging, 'test')).toBe(SAMPLE_EVENTS);
    expect(writerLock(staging)).toBeUndefined();
    const after = await runCli(['status', '--staging', hardLink], { cwd: dir });
    expect(after.code).toBe(0);
    expect(after.stdout).toContain('has 2 names (hard links)');
  });

  it('a lock left by a killed import is taken over; status says the import was killed', async () => {
    const host = await hangingHost();
    const dir = tempDir();
    const staging = staged(dir);
    const config = writeHostsConfig(dir, { test: host.url });
    const killed = startCli(['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    await host.requestsSeen(1);
    killed.child.kill('SIGKILL');
    await killed.done;
    expect(writerLock(staging)).toBeDefined();
    const status = await runCli(['status', '--staging', staging], { cwd: dir });
    expect(status.stdout).toMatch(/test\s+test\s+\S+\s+0\s+3,000\s+0\s+killed\n {2}test: continue with `migrate resume --project test`\n/);
    host.release();
    const resumed = await runCli(['resume', '--staging', staging, ...FAST], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(deliveredCount(staging, 'test')).toBe(SAMPLE_EVENTS);
  });

  it('two processes finding the same dead holder: exactly one takes the lock over', async () => {
    const host = await hangingHost();
    const dir = tempDir();
    const staging = staged(dir);
    const config = writeHostsConfig(dir, { test: host.url });
    const db = openDatabase(staging);
    const dead = { pid: deadPid(), host: hostname(), command: 'import', startedAt: '2026-01-01T00:00:00.000Z', token: 'dead' };
    db.prepare("INSERT INTO meta (key, value) VALUES ('writer_lock', ?)").run(JSON.stringify(dead));
    db.close();
    const runs = [0, 1].map(() => startCli(['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, ...FAST], { cwd: dir }));
    // The loser ends at once; the winner waits on the hanging host.
    const loser = await Promise.race(runs.map((run, i) => run.done.then((result) => ({ result, i }))));
    const winner = runs[1 - loser.i]!;
    expect(loser.result.code, loser.result.stderr).toBe(7);
    expect(loser.result.stderr).toContain(`is in use by process ${winner.child.pid} (migrate import`);
    host.release();
    const won = await winner.done;
    expect(won.code, won.stderr).toBe(0);
    expect(deliveredCount(staging, 'test')).toBe(SAMPLE_EVENTS);
  });
});
