/**
 * Disks that fill, disks that are read-only, files owned by someone else, a missing directory,
 * damaged pages: every command says in one line which file and what to do, exits 7, prints no
 * stack trace, loses nothing, and the same command run again (after the fix) finishes.
 * Real small disks (tmpfs) where mounting is permitted; the test skips itself otherwise.
 */
import { chmodSync, copyFileSync, openSync, closeSync, readFileSync, writeSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runCliProcess, type CliResult } from '../helpers/run-cli.js';
import { cliAsNobody } from '../helpers/other-user.js';
import { usedBytes, useSmallDisks } from '../helpers/small-disk.js';
import { storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { useStagedTemplate, writeHostsConfig } from '../helpers/staged-template.js';
import { FAST, SAMPLE_CSV, SAMPLE_EVENTS, deliveredCount, readStaging, stagedSampleTemplate, stagedUuids } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

function expectOneLineError(result: CliResult, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(7);
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toContain('SqliteError');
  const lines = result.stderr.trim().split('\n');
  // A disk warning of the preflight, or the note that it was skipped, may come first; the failure itself is one line.
  expect(
    lines.filter((line) => !line.startsWith('warning:') && !line.includes('preflight skipped')),
    result.stderr,
  ).toHaveLength(1);
}

/** A CSV of `rows` events, about 300 bytes each. */
function writeEvents(dir: string, rows: number): string {
  const lines = ['event,distinct_id,timestamp,properties'];
  const pad = 'x'.repeat(160);
  for (let i = 0; i < rows; i++) lines.push(`page_view,user_${i % 97},${new Date(Date.UTC(2025, 8, 1) + i * 1000).toISOString()},"{""i"":${i},""pad"":""${pad}""}"`);
  const file = join(dir, 'events.csv');
  writeFileSync(file, lines.join('\n'));
  return file;
}

describe('a disk that fills', () => {
  const tempDir = useTempDir();
  const disks = useSmallDisks();
  const sandboxAt = useSandbox();

  it('export-source: says the disk is full and what is safe, exits 7; the same command finishes once there is room', async (ctx) => {
    const disk = disks.mount('2m');
    if (disk === undefined) return ctx.skip();
    // Gzipped, so the preflight's disk estimate is a guess that only warns: the disk fills while staging.
    const csv = `${writeEvents(tempDir(), 20_000)}.gz`;
    writeFileSync(csv, gzipSync(readFileSync(csv.slice(0, -3))));
    const staging = join(disk, 'migration.db');
    const args = ['export-source', '--from', 'csv', csv, '--staging', staging, '--quiet'];
    // A process of its own: on a full disk its lock cannot be removed, and only a process that has ended lets the next command take it.
    const full = await runCliProcess(args, { cwd: disk });
    expectOneLineError(full, new RegExp(`^error: the disk holding ${staging} is full: [\\d,]+ events staged so far, nothing lost; free space and run the same command again$`, 'm'));
    disks.remount(disk, 'size=64m');
    const again = await runCli(args, { cwd: disk });
    expect(again.code, again.stderr).toBe(0);
    const status = JSON.parse((await runCli(['status', '--staging', staging, '--json'])).stdout) as { events: { count: number } };
    expect(status.events.count).toBe(20_000);
  });

  it('import: says the disk is full and how many events are recorded as delivered; the same command finishes', async (ctx) => {
    const disk = disks.mount('16m');
    if (disk === undefined) return ctx.skip();
    const sandbox = await sandboxAt();
    const staging = join(disk, 'migration.db');
    copyFileSync(await stagedSampleTemplate(), staging); // the sample as export-source stages it
    // Leave room for the run to start, not for its checkpoints.
    disks.remount(disk, `size=${Math.ceil((usedBytes(disk) + 400 * 1024) / 4096) * 4096}`);
    const config = writeSandboxConfig(tempDir(), sandbox);
    const args = ['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, '--chunk-events', '100', ...FAST];
    const full = await runCliProcess(args); // its own process, as above
    expectOneLineError(
      full,
      new RegExp(`^error: the disk holding ${staging} is full: [\\d,]+ events delivered to test so far, recorded, nothing lost; free space and run the same command again$`, 'm'),
    );
    const recorded = deliveredCount(staging, 'test');
    expect(recorded).toBeLessThan(SAMPLE_EVENTS);
    expect(full.stderr).toContain(` is full: ${recorded.toLocaleString('en-US')} events delivered to test so far`);
    disks.remount(disk, 'size=64m');
    const again = await runCli(args);
    expect(again.code, again.stderr).toBe(0);
    expect(deliveredCount(staging, 'test')).toBe(SAMPLE_EVENTS);
    expect(new Set(storedEvents(sandbox, 1).map((e) => e.uuid))).toEqual(new Set(stagedUuids(staging)));
  });
});

describe('a staging file that cannot be written', () => {
  const tempDir = useTempDir();
  const disks = useSmallDisks();
  const staged = useStagedTemplate();

  it('on a read-only disk: status, rejects and status --check read it; import and export-source say so in one line', async (ctx) => {
    const disk = disks.mount('8m');
    if (disk === undefined) return ctx.skip();
    const staging = staged(disk);
    disks.remount(disk, 'ro');
    const status = await runCli(['status', '--staging', staging, '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ events: { count: SAMPLE_EVENTS } });
    expect((await runCli(['rejects', '--staging', staging])).code).toBe(0);
    expect((await runCli(['status', '--check', '--staging', staging])).code).toBe(0);
    const config = writeHostsConfig(tempDir(), { test: 'http://127.0.0.1:9' });
    const readOnly = new RegExp(
      `^error: ${staging} is on a read-only disk: make the disk writable, or copy the file to a writable disk and pass --staging <copy>, then run the same command again`,
      'm',
    );
    expectOneLineError(await runCli(['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, ...FAST]), readOnly);
    expectOneLineError(await runCli(['export-source', '--from', 'csv', SAMPLE_CSV, '--staging', staging, '--quiet']), readOnly);
  });

  it('owned by another user: status reads it; import says there is no permission to write', async (ctx) => {
    const nobody = cliAsNobody(tempDir());
    if (nobody === undefined) return ctx.skip();
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const staging = staged(dir);
    const config = join(dir, 'migrate.config.json');
    writeFileSync(config, JSON.stringify({ projects: { test: { role: 'test', host: 'http://127.0.0.1:9', apiKey: 'phc_TestProjectKey0123456789abcdefghijklmnopq' } } }));
    const status = await runCli(['status', '--staging', staging, '--json'], { ...nobody, cwd: dir });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ events: { count: SAMPLE_EVENTS } });
    const denied = await runCli(['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, ...FAST], { ...nobody, cwd: dir });
    expectOneLineError(
      denied,
      new RegExp(`^error: no permission to write ${staging} or the files SQLite keeps beside it \\(migration\\.db-wal, migration\\.db-shm in ${dir}\\): run as the user who owns it`, 'm'),
    );
  });

  it('in a directory that does not exist: one line naming it', async () => {
    const dir = tempDir();
    const staging = join(dir, 'no', 'such', 'dir', 'migration.db');
    const result = await runCli(['export-source', '--from', 'csv', SAMPLE_CSV, '--staging', staging, '--quiet']);
    expectOneLineError(
      result,
      new RegExp(`^error: the directory ${join(dir, 'no', 'such', 'dir')} of the staging file does not exist: create it, or pass --staging with a file in an existing directory$`, 'm'),
    );
  });
});

describe('a staging file with damaged pages', () => {
  const tempDir = useTempDir();
  const staged = useStagedTemplate();

  function damage(staging: string): void {
    // Overwrite with garbage the first, second and last leaf pages of the events table, found by
    // SQLite's page map: import reads the first ones before sending anything, whatever the layout.
    const { pageBytes, pages } = readStaging(staging, (db) => ({
      pageBytes: db.pragma('page_size', { simple: true }) as number,
      pages: (db.prepare("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY pageno").all() as Array<{ pageno: number }>).map((r) => r.pageno),
    }));
    const fd = openSync(staging, 'r+');
    try {
      const garbage = Buffer.alloc(pageBytes, 0xa5);
      for (const page of [pages[0]!, pages[1]!, pages.at(-1)!]) writeSync(fd, garbage, 0, pageBytes, (page - 1) * pageBytes);
    } finally {
      closeSync(fd);
    }
  }

  it('status --check names the damage and exits 7; import and export-source say the file is damaged and how to recover', async () => {
    const dir = tempDir();
    const staging = staged(dir);
    const healthy = await runCli(['status', '--check', '--staging', staging]);
    expect(healthy.code, healthy.stderr).toBe(0);
    expect(healthy.stdout).toContain('tables and their indexes checked: no damage found.');

    const copy = join(dir, 'before.db');
    copyFileSync(staging, copy);
    damage(staging);
    const check = await runCli(['status', '--check', '--staging', staging, '--json']);
    expect(check.code).toBe(7);
    const report = JSON.parse(check.stdout) as { healthy: boolean; tables: Array<{ table: string; problems: string[] }> };
    expect(report.healthy).toBe(false);
    expect(report.tables.filter((t) => t.problems.length > 0).map((t) => t.table)).toContain('events');
    expect(check.stderr).toMatch(new RegExp(`^error: the staging file ${staging} is damaged: damaged pages in .*events`, 'm'));
    expect(check.stderr).not.toMatch(/^\s+at /m);

    const config = join(dir, 'migrate.config.json');
    writeFileSync(config, JSON.stringify({ projects: { test: { role: 'test', host: 'http://127.0.0.1:9', apiKey: 'phc_TestProjectKey0123456789abcdefghijklmnopq' } } }));
    for (const args of [
      ['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, ...FAST],
      ['export-source', '--from', 'csv', SAMPLE_CSV, '--staging', staging, '--quiet'],
    ]) {
      const result = await runCli(args, { cwd: dir });
      expect(result.code, result.stderr).toBe(7);
      expect(result.stderr).toMatch(new RegExp(`^error: the staging file ${staging} is damaged \\(SQLite: .*malformed.*\\)$`, 'm'));
      expect(result.stderr).toContain('See what is damaged: migrate status --check\n'); // the default staging file of the working directory
      expect(result.stderr).toContain('stage the source files again into a new staging file');
      expect(result.stderr).not.toMatch(/^\s+at /m);
    }
  });
});
