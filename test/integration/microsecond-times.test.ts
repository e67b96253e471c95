/**
 * Times to the microsecond through the built CLI: a PostHog project moved to another
 * (`--from posthog-api`, sandbox A to sandbox B) and JSON and CSV files arrive with every digit
 * of their times, and verify counts them all landed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxPersonalKey } from '../../src/sandbox/api/management-seed.js';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { ensureProjects } from '../helpers/management-sandbox.js';
import { type SourceEvent, sendToSandbox } from '../helpers/posthog-source.js';
import { runCli } from '../helpers/run-cli.js';
import { sandboxTokens, storedEvents, useSandbox } from '../helpers/sandbox.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { openDatabase } from '../../src/sqlite/database.js';
import { FAST, FAST_RETRIES } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxes = useSandbox();

function uuidOf(n: number): string {
  return `0190b000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** Times with microseconds, several in one millisecond (a page boundary falls among them), and some without. */
function timeOf(i: number): string {
  const base = new Date(Date.UTC(2025, 2, 1) + Math.floor(i / 4) * 3_600_000 + 123).toISOString().slice(0, -1);
  return i % 4 === 3 ? `${base}Z` : `${base}${String(100 + i * 7).padStart(3, '0')}Z`;
}

/** A config: A's project 1 as `old` (read), B's project 1 as `test` (written and verified). */
function moveConfig(dir: string, a: RunningSandbox, b: RunningSandbox): string {
  ensureProjects(a.store);
  ensureProjects(b.store);
  const projects = {
    old: { role: 'test', host: a.url, projectId: 1, personalApiKey: sandboxPersonalKey(a.store, 'owner-all') },
    test: { role: 'test', host: b.url, apiKey: sandboxTokens(b).test, projectId: '1', personalApiKey: sandboxPersonalKey(b.store, 'owner-all') },
  };
  const file = join(dir, 'migrate.config.json');
  writeFileSync(file, JSON.stringify({ projects }, null, 2));
  return file;
}

describe('times to the microsecond', () => {
  it('a PostHog project moved with --from posthog-api arrives with every digit, and verify finds it all', async () => {
    const a = await sandboxes({ api: { query: { maxRows: 3 } } });
    const b = await sandboxes();
    const dir = tempDir();
    const config = moveConfig(dir, a, b);
    const sent: SourceEvent[] = Array.from({ length: 24 }, (_, i) => ({ uuid: uuidOf(i), event: 'tick', distinct_id: `u${i % 3}`, timestamp: timeOf(i), properties: { n: i } }));
    await sendToSandbox(a, sent);
    expect(storedEvents(a, 1).map((e) => e.timestamp)).toEqual(sent.map((e) => e.timestamp.replace(/(\.\d{3})Z$/, '$1Z')));

    const staging = join(dir, 'migration.db');
    const args = ['--staging', staging, '--config', config];
    const staged = await runCli(
      ['export-source', '--from', 'posthog-api', '--project', 'old', '--start', '2025-03-01', '--end', '2025-03-02', '--max-requests-per-hour', '0', ...args, ...FAST_RETRIES],
      {
        cwd: dir,
      },
    );
    expect(staged.code, staged.stderr).toBe(0);
    const inStaging = new Map(readStagedEvents(staging).map((e) => [e.uuid, e.timestamp]));
    expect(sent.map((e) => inStaging.get(e.uuid))).toEqual(sent.map((e) => e.timestamp));

    const imported = await runCli(['import', '--project', 'test', ...args, ...FAST], { cwd: dir });
    expect(imported.code, imported.stderr).toBe(0);
    const inB = new Map(storedEvents(b, 1).map((e) => [e.uuid, e.timestamp]));
    expect(sent.map((e) => inB.get(e.uuid))).toEqual(sent.map((e) => e.timestamp));

    const verified = await runCli(['verify', '--project', 'test', ...args], { cwd: dir });
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/1 day complete: (\d+) of \1 delivered events landed/);
  });

  it('JSON and CSV times with 4 to 9 fraction digits and epoch digits keep their microseconds', async () => {
    const b = await sandboxes();
    const dir = tempDir();
    ensureProjects(b.store);
    const config = join(dir, 'migrate.config.json');
    writeFileSync(config, JSON.stringify({ projects: { test: { role: 'test', host: b.url, apiKey: sandboxTokens(b).test } } }));
    const json = [
      { event: 'a', distinct_id: 'u1', timestamp: '2025-03-01T10:00:00.123456Z', uuid: uuidOf(1) },
      { event: 'a', distinct_id: 'u1', timestamp: '2025-03-01T12:00:00.1234+02:00', uuid: uuidOf(2) },
      { event: 'a', distinct_id: 'u1', timestamp: '2025-03-01T10:00:00.123456789Z', uuid: uuidOf(3) },
      { event: 'a', distinct_id: 'u1', timestamp: 1740823200.654321, uuid: uuidOf(4) },
      { event: 'a', distinct_id: 'u1', timestamp: '1740823200654.321', uuid: uuidOf(5) },
    ];
    writeFileSync(join(dir, 'events.jsonl'), json.map((row) => JSON.stringify(row)).join('\n'));
    writeFileSync(join(dir, 'events.csv'), `event,distinct_id,timestamp,uuid\nb,u2,2025-03-01 10:00:00.000001,${uuidOf(6)}\n`);
    const staging = join(dir, 'migration.db');
    for (const [file, extra] of [
      ['events.jsonl', []],
      ['events.csv', ['--timezone', 'UTC']],
    ] as const) {
      const staged = await runCli(['export-source', join(dir, file), '--from', file.endsWith('.csv') ? 'csv' : 'jsonl', '--staging', staging, ...extra], { cwd: dir });
      expect(staged.code, staged.stderr).toBe(0);
    }
    const imported = await runCli(['import', '--project', 'test', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(imported.code, imported.stderr).toBe(0);
    const inB = new Map(storedEvents(b, 1).map((e) => [e.uuid, e.timestamp]));
    expect([1, 2, 3, 4, 5, 6].map((n) => inB.get(uuidOf(n)))).toEqual([
      '2025-03-01T10:00:00.123456Z',
      '2025-03-01T10:00:00.123400Z',
      '2025-03-01T10:00:00.123456Z',
      '2025-03-01T10:00:00.654321Z',
      '2025-03-01T10:00:00.654321Z',
      '2025-03-01T10:00:00.000001Z',
    ]);
  });

  it('a row staged without its microseconds (by an earlier migrate, or from a file in milliseconds) is the same row; other microseconds are a conflict', async () => {
    const dir = tempDir();
    const staging = join(dir, 'migration.db');
    const rows = (fraction: string) => [1, 2].map((n) => JSON.stringify({ event: 'a', distinct_id: 'u', timestamp: `2025-03-01T10:00:0${n}.123${fraction}Z`, uuid: uuidOf(n) })).join('\n');
    const stage = async (file: string, text: string) => {
      writeFileSync(join(dir, file), text);
      const result = await runCli(['export-source', join(dir, file), '--from', 'jsonl', '--staging', staging, '--json'], { cwd: dir });
      return { code: result.code, totals: result.code === 0 || result.code === 3 ? (JSON.parse(result.stdout) as { totals: Record<string, unknown> }).totals : result.stderr };
    };
    expect((await stage('us.jsonl', rows('456'))).totals).toMatchObject({ staged: 2 });
    // As an earlier migrate staged them: cut to the millisecond.
    const db = openDatabase(staging);
    db.prepare('UPDATE events SET sub_ms_us = 0').run();
    db.close();
    expect((await stage('us.jsonl', rows('456'))).totals).toMatchObject({ staged: 0, alreadyStaged: 2, rejected: 0 });
    expect((await stage('ms.jsonl', rows(''))).totals).toMatchObject({ staged: 0, alreadyStaged: 2, rejected: 0 });
    expect(readStagedEvents(staging).map((e) => e.timestamp)).toEqual(['2025-03-01T10:00:01.123Z', '2025-03-01T10:00:02.123Z']);

    const other = tempDir();
    const fresh = join(other, 'migration.db');
    for (const [file, fraction] of [
      ['us.jsonl', '456'],
      ['other.jsonl', '457'],
    ]) {
      writeFileSync(join(other, file!), rows(fraction!));
      await runCli(['export-source', join(other, file!), '--from', 'jsonl', '--staging', fresh], { cwd: other });
    }
    const rejects = await runCli(['rejects', '--json', '--staging', fresh], { cwd: other });
    expect((JSON.parse(rejects.stdout) as Array<{ reason: string; message: string }>).map((r) => r.reason)).toEqual(['conflicts_with_staged', 'conflicts_with_staged']);
    expect(rejects.stdout).toContain('2025-03-01T10:00:01.123456Z then 2025-03-01T10:00:01.123457Z');
  });
});
