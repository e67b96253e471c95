/**
 * Staging the same sources again, through the built CLI on real files: implausible times,
 * a copy read with another time zone, a corrected row, changed options, and counts that add up.
 * Every run is checked for its exit code, its rows (staged, rejected with line and reason,
 * withdrawn) and the absence of a stack trace.
 */
import { copyFileSync, mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeZip } from '../../scripts/zip-writer.mjs';
import { listSandboxProjects } from '../../src/sandbox/sandbox-projects.js';
import { abandonRead } from '../../src/staging/source-reads.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { FAST, forgetRecordedOptions, stagedUuids } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();

interface Run extends CliResult {
  json: { files: Array<Record<string, unknown>>; totals: Record<string, unknown> } | undefined;
}

/** Runs a staging command (or any) against `dir/m.db`; parses stdout as JSON when --json was asked. */
async function run(dir: string, args: string[]): Promise<Run> {
  const result = await runCli([...args, '--staging', join(dir, 'm.db')], { cwd: dir });
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stderr).not.toContain('unexpected failure');
  const json = args.includes('--json') && result.stdout.trim().startsWith('{') ? JSON.parse(result.stdout) : undefined;
  return { ...result, json };
}

async function status(dir: string) {
  const result = await run(dir, ['status', '--json']);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

async function rejects(dir: string) {
  const result = await run(dir, ['rejects', '--json']);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Array<{ path: string; line: number; field: string; reason: string; message: string }>;
}

function csv(dir: string, name: string, rows: string[], header = 'event,distinct_id,timestamp'): string {
  writeFileSync(join(dir, name), [header, ...rows].join('\n') + '\n');
  return name;
}

describe('time rules', () => {
  it('rejects placeholder and far-future times with their line and reason, and stages the rest', async () => {
    const dir = tempDir();
    const soon = new Date(Date.now() + 20 * 3600_000).toISOString();
    const later = new Date(Date.now() + 25 * 3600_000).toISOString();
    csv(dir, 'e.csv', ['a,u1,2024-05-01T10:00:00Z', 'b,u2,0', 'c,u3,1970-01-01T00:00:00Z', 'd,u4,1900-01-01', `e,u5,${soon}`, `f,u6,${later}`, 'g,u7,1999-12-31T23:59:59Z']);
    const result = await run(dir, ['export-source', '--from', 'csv', 'e.csv', '--json']);
    expect(result.code).toBe(0);
    expect(result.json!.totals).toMatchObject({ rowsRead: 7, staged: 2, rejected: 5, recent: 1, rejectedByReason: { implausible_timestamp: 4, future_timestamp: 1 } });
    expect((await rejects(dir)).map((r) => [r.line, r.reason, r.field])).toEqual([
      [3, 'implausible_timestamp', 'timestamp'],
      [4, 'implausible_timestamp', 'timestamp'],
      [5, 'implausible_timestamp', 'timestamp'],
      [7, 'future_timestamp', 'timestamp'],
      [8, 'implausible_timestamp', 'timestamp'],
    ]);
    const text = await run(dir, ['rejects', '--reason', 'implausible_timestamp', '--limit', '1']);
    expect(text.stdout.trim()).toBe(
      'e.csv:3 implausible_timestamp timestamp: 1970-01-01T00:00:00.000Z is before 2000-01-01 (--min-time): a placeholder such as 0 or 1900-01-01? If it is real, pass --min-time <earlier date>',
    );
  });

  it('reads a file again once the clock lets in rows it rejected as future_timestamp; a far-future placeholder does not make every run read it', async () => {
    const dir = tempDir();
    const path = join(dir, csv(dir, 'f.csv', ['a,u1,2024-12-31T00:00:00Z', 'b,u2,2025-01-03T00:00:00Z', 'c,u3,2099-01-01T00:00:00Z']));
    // The program's clock is this process's: the in-process CLI reads the time set here.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.UTC(2025, 0, 1));
      const first = await run(dir, ['export-source', '--from', 'csv', 'f.csv', '--json']);
      expect(first.json!.totals).toMatchObject({ rowsRead: 3, staged: 1, rejected: 2, rejectedByReason: { future_timestamp: 2 } });
      const same = await run(dir, ['export-source', '--from', 'csv', 'f.csv', '--json']);
      expect(same.json).toMatchObject({ unchanged: [path], totals: { rowsRead: 0 } });
      vi.setSystemTime(Date.UTC(2025, 0, 3));
      const later = await run(dir, ['export-source', '--from', 'csv', 'f.csv', '--json']);
      expect(later.json).toMatchObject({ unchanged: [], totals: { rowsRead: 3, staged: 1, alreadyStaged: 1, rejected: 1, rejectedByReason: { future_timestamp: 1 } } });
      const placeholderOnly = await run(dir, ['export-source', '--from', 'csv', 'f.csv', '--json']);
      expect(placeholderOnly.json).toMatchObject({ unchanged: [path], totals: { rowsRead: 0 } });
    } finally {
      vi.useRealTimers();
    }
    expect((await status(dir)).events.count).toBe(2);
  });

  it('an earlier --min-time (or --allow-before) stages the rows rejected before; a later one is refused', async () => {
    const dir = tempDir();
    csv(dir, 'old.csv', ['a,u1,1998-03-01T10:00:00Z', 'b,u2,2024-03-01T10:00:00Z', 'c,u3,0']);
    expect((await run(dir, ['export-source', '--from', 'csv', 'old.csv', '--json'])).json!.totals).toMatchObject({ staged: 1, rejected: 2 });
    const widened = await run(dir, ['export-source', '--from', 'csv', 'old.csv', '--allow-before', '1990-01-01', '--json']);
    expect(widened.code).toBe(0);
    expect(widened.json!.totals).toMatchObject({ staged: 1, alreadyStaged: 1, rejected: 1, rejectedByReason: { implausible_timestamp: 1 } });
    const narrowed = await run(dir, ['export-source', '--from', 'csv', 'old.csv', '--min-time', '2010-01-01']);
    expect(narrowed.code).toBe(6);
    expect(narrowed.stderr).toContain('--min-time: was 1990-01-01, now 2010-01-01');
    expect((await status(dir)).events.count).toBe(2);
  });

  it('a run where every row is rejected exits 3 with the top reasons; rejected rows next to staged ones exit 0', async () => {
    const dir = tempDir();
    csv(dir, 'bad.csv', ['a,u1,0', 'b,u2,0', 'c,,2024-01-01T00:00:00Z']);
    const bad = await run(dir, ['export-source', '--from', 'csv', 'bad.csv']);
    expect(bad.code).toBe(3);
    expect(bad.stdout).toContain('bad.csv: 3 rows read: 0 new, 0 already staged, 0 identical, 0 skipped, 3 rejected');
    expect(bad.stderr).toContain('error: nothing was staged: every row read was rejected (2 implausible_timestamp, 1 missing_distinct_id)');
    expect(bad.stderr).toContain('migrate rejects');
    csv(dir, 'mixed.csv', ['a,u1,0', 'b,u2,2024-01-01T00:00:00Z']);
    const mixed = await run(dir, ['export-source', '--from', 'csv', 'mixed.csv']);
    expect(mixed.code).toBe(0);
    expect(mixed.stderr).toBe('');
    // A file staged by export-source is another command's source: identify-users reads a copy (a read by another command is refused).
    copyFileSync(join(dir, 'bad.csv'), join(dir, 'bad-users.csv'));
    const json = await run(dir, ['identify-users', '--from', 'csv', 'bad-users.csv', '--json']);
    expect(json.code).toBe(3);
    expect(json.json!.totals).toMatchObject({ staged: 0, rejected: 3 });
  });
});

describe('a copy of a file read with another time zone', () => {
  it('is rejected row by row as conflicts naming the other file and both zones; other files in other zones stage', async () => {
    const dir = tempDir();
    const rows = ['signed_up,u1,2025-03-01 10:00:00', 'signed_up,u2,2025-03-01 11:00:00'];
    csv(dir, 'a.csv', rows);
    csv(dir, 'copy.csv', rows);
    csv(dir, 'paris.csv', ['signed_up,u3,2025-03-01 10:00:00']);
    expect((await run(dir, ['export-source', '--from', 'csv', 'a.csv', '--timezone', 'America/New_York', '--json'])).json!.totals).toMatchObject({ staged: 2 });
    const copy = await run(dir, ['export-source', '--from', 'csv', 'copy.csv', '--timezone', 'Europe/Paris']);
    expect(copy.code).toBe(3);
    expect(copy.stdout).toContain('copy.csv: 2 rows read: 0 new, 0 already staged, 0 identical, 0 skipped, 2 rejected');
    const [first] = await rejects(dir);
    expect(first).toMatchObject({ line: 2, reason: 'conflicts_with_staged' });
    expect(first!.path).toMatch(/copy\.csv$/);
    expect(first!.message).toMatch(
      /^this row was staged from .*a\.csv:2 at 2025-03-01T15:00:00\.000Z \(--timezone America\/New_York\); read here with --timezone Europe\/Paris it is at 2025-03-01T09:00:00\.000Z/,
    );
    expect((await status(dir)).events.count).toBe(2);

    // A different file in another zone, and the copy in the same zone, are fine.
    expect((await run(dir, ['export-source', '--from', 'csv', 'paris.csv', '--timezone', 'Europe/Paris', '--json'])).json!.totals).toMatchObject({ staged: 1 });
    const sameZone = await run(dir, ['export-source', '--from', 'csv', 'copy.csv', '--timezone', 'America/New_York', '--json']);
    expect(sameZone.code).toBe(6);
    expect(sameZone.stderr).toContain('--timezone: was Europe/Paris, now America/New_York');
    const fresh = tempDir();
    csv(fresh, 'a.csv', rows);
    csv(fresh, 'copy.csv', rows);
    await run(fresh, ['export-source', '--from', 'csv', 'a.csv', '--timezone', 'America/New_York']);
    expect((await run(fresh, ['export-source', '--from', 'csv', 'copy.csv', '--timezone', 'America/New_York', '--json'])).json!.totals).toMatchObject({ staged: 0, alreadyStaged: 2 });
  });

  it('a Mixpanel export read again under another project zone from another path', async () => {
    const dir = tempDir();
    const line = JSON.stringify({ event: 'Signed Up', properties: { time: 1_709_287_200, distinct_id: 'u1', $insert_id: 'i1' } });
    writeFileSync(join(dir, 'mp.json'), `${line}\n`);
    copyFileSync(join(dir, 'mp.json'), join(dir, 'mp-copy.json'));
    expect((await run(dir, ['export-source', '--from', 'mixpanel', 'mp.json', '--json'])).json!.totals).toMatchObject({ staged: 1 });
    const copy = await run(dir, ['export-source', '--from', 'mixpanel', 'mp-copy.json', '--timezone', 'America/Los_Angeles', '--json']);
    expect(copy.code).toBe(3);
    expect(copy.json!.totals).toMatchObject({ staged: 0, rejectedByReason: { conflicts_with_staged: 1 } });
    expect((await rejects(dir))[0]!.message).toContain('(--timezone UTC); read here with --timezone America/Los_Angeles');
  });
});

describe('a file corrected and staged again', () => {
  it('withdraws the old version of a corrected row, counts it, and a file that only grew withdraws nothing', async () => {
    const dir = tempDir();
    csv(dir, 'e.csv', ['signup,u1,2025-03-01T10:00:00Z', 'sigup,u2,2025-03-01T11:00:00Z']);
    await run(dir, ['export-source', '--from', 'csv', 'e.csv']);
    csv(dir, 'e.csv', ['signup,u1,2025-03-01T10:00:00Z', 'signup,u2,2025-03-01T11:00:00Z']);
    const fixed = await run(dir, ['export-source', '--from', 'csv', 'e.csv']);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain('e.csv: 2 rows read: 1 new, 1 already staged, 0 identical, 0 skipped, 0 rejected');
    expect(fixed.stdout).toContain('1 withdrawn: no longer in the file');
    const report = await status(dir);
    expect(report.events.count).toBe(2);
    expect(report.topEvents).toEqual([{ name: 'signup', count: 2 }]);
    expect(report.withdrawn).toEqual({ count: 1, delivered: [] });
    expect(report.sources[0]).toMatchObject({ rowsRead: 2, staged: 1, alreadyStaged: 1, withdrawn: 1 });

    csv(dir, 'e.csv', ['signup,u1,2025-03-01T10:00:00Z', 'signup,u2,2025-03-01T11:00:00Z', 'signup,u3,2025-03-01T12:00:00Z']);
    const grown = await run(dir, ['export-source', '--from', 'csv', 'e.csv', '--json']);
    expect(grown.json!.totals).toMatchObject({ rowsRead: 3, staged: 1, alreadyStaged: 2, withdrawn: 0 });
    expect((await status(dir)).withdrawn.count).toBe(1);
  });

  it('when a project received a row gone from the file: refused (exit 6) naming it, or --replace-changed, never sent again', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    csv(dir, 'e.csv', ['signup,u1,2025-03-01T10:00:00Z', 'sigup,u2,2025-03-01T11:00:00Z', 'signup,u3,2025-03-01T12:00:00Z']);
    await run(dir, ['export-source', '--from', 'csv', 'e.csv']);
    const before = stagedUuids(join(dir, 'm.db'));
    expect((await run(dir, ['import', '--project', 'test', '--config', config, ...FAST])).code).toBe(0);

    csv(dir, 'e.csv', ['signup,u1,2025-03-01T10:00:00Z', 'signup,u2,2025-03-01T11:00:00Z', 'signup,u3,2025-03-01T12:00:00Z']);
    const refused = await run(dir, ['export-source', '--from', 'csv', 'e.csv']);
    expect(refused.code).toBe(6);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('e.csv changed since it was staged: 1 row staged from it earlier is no longer in it, and 1 of them was already delivered to test (1):');
    expect(refused.stderr).toContain(`e.csv:3 uuid ${before[1]}, delivered to test`);
    expect(refused.stderr).toContain('Nothing from this run was kept.');
    expect(refused.stderr).toContain('--replace-changed');
    expect(refused.stderr).toContain('--staging other.db');
    expect(stagedUuids(join(dir, 'm.db'))).toEqual(before);
    expect((await status(dir)).projects[0]).toMatchObject({ name: 'test', delivered: 3, pending: 0 });

    const replaced = await run(dir, ['export-source', '--from', 'csv', 'e.csv', '--replace-changed']);
    expect(replaced.code).toBe(0);
    expect(replaced.stdout).toContain('1 withdrawn: no longer in the file');
    expect(replaced.stdout).toContain('1 of them was already delivered to test, which keeps it (PostHog cannot delete events): it will have both versions');
    const report = await status(dir);
    expect(report.events.count).toBe(3);
    expect(report.withdrawn).toEqual({ count: 1, delivered: [{ project: 'test', count: 1 }] });
    expect(report.projects[0]).toMatchObject({ name: 'test', delivered: 2, pending: 1 });

    // Production gets only the corrected version; test gets it too (and keeps the old one).
    expect((await run(dir, ['import', '--project', 'test', '--config', config, ...FAST])).code).toBe(0);
    expect((await run(dir, ['import', '--project', 'prod', '--config', config, ...FAST])).code).toBe(0);
    const teams = Object.fromEntries(listSandboxProjects(sandbox.store).map((p) => [p.role, p.id]));
    expect(
      storedEvents(sandbox, teams.production!)
        .map((e) => e.event)
        .sort(),
    ).toEqual(['signup', 'signup', 'signup']);
    expect(
      storedEvents(sandbox, teams.test!)
        .map((e) => e.event)
        .sort(),
    ).toEqual(['signup', 'signup', 'signup', 'sigup']);
  });
});

describe('options that shape content, changed', () => {
  it('are refused up front, all of them, before any file is staged; widening --timezone is allowed', async () => {
    const dir = tempDir();
    csv(dir, 'a.csv', ['signed_up,u1,2025-03-01T10:00:00Z,acme,42', 'signed_up,u2,2025-03-01 10:00:00,acme,7'], 'event,distinct_id,timestamp,company,n');
    csv(dir, 'b.csv', ['x,u9,2025-03-01T10:00:00Z']);
    writeFileSync(join(dir, 'map.json'), JSON.stringify({ events: { signed_up: 'Signed Up' } }));
    writeFileSync(join(dir, 'same-map.json'), JSON.stringify({ events: { signed_up: 'Signed Up' } }, null, 2));
    await run(dir, ['export-source', '--from', 'csv', 'a.csv', '--map', 'map.json']);

    const changed = await run(dir, ['export-source', '--from', 'csv', 'b.csv', 'a.csv', '--map', 'map.json', '--group', 'company=company', '--no-infer-types']);
    expect(changed.code).toBe(6);
    expect(changed.stderr).toContain(
      'a.csv was staged earlier with other options that shape its events:\n  --group: was none, now company=company\n  --no-infer-types: was types inferred, now cells kept as text',
    );
    expect(changed.stderr).toContain('Start a new staging file for the new options (--staging other.db), or pass --replace-changed');
    expect((await status(dir)).sources).toHaveLength(1);

    writeFileSync(join(dir, 'map.json'), JSON.stringify({ events: { signed_up: 'user signed up' } }));
    const mapChanged = await run(dir, ['export-source', '--from', 'csv', 'a.csv', '--map', 'map.json']);
    expect(mapChanged.code).toBe(6);
    expect(mapChanged.stderr).toMatch(/--map: was mapping sha256:[0-9a-f]{12}\.\.\., now mapping sha256:[0-9a-f]{12}\.\.\./);
    // The same mapping at another path (and another layout) is no change; adding a zone only widens.
    const widened = await run(dir, ['export-source', '--from', 'csv', 'a.csv', '--map', 'same-map.json', '--timezone', 'UTC', '--json']);
    expect(widened.code).toBe(0);
    expect(widened.json!.totals).toMatchObject({ staged: 1, alreadyStaged: 1, rejected: 0 });

    const replaced = await run(dir, ['export-source', '--from', 'csv', 'a.csv', '--map', 'map.json', '--timezone', 'UTC', '--replace-changed', '--json']);
    expect(replaced.code).toBe(0);
    expect(replaced.json!.totals).toMatchObject({ rowsRead: 2, staged: 2, rejected: 0, withdrawn: 2 });
    expect((await status(dir)).topEvents).toEqual([{ name: 'user signed up', count: 2 }]);
  });
});

describe('counts that add up, words that agree', () => {
  it('per file, for all files and in status (text and JSON): read = new + already staged + identical + skipped + rejected', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'map.json'), JSON.stringify({ events: { debug: null } }));
    csv(dir, 'a.csv', ['a,u1,2024-01-01T00:00:00Z', 'a,u1,2024-01-01T00:00:00Z', 'debug,u1,2024-01-01T00:00:00Z', 'b,u2,0']);
    csv(dir, 'b.csv', ['a,u1,2024-01-01T00:00:00Z', 'c,u3,2024-01-02T00:00:00Z', 'debug,u3,2024-01-02T00:00:00Z']);
    const result = await run(dir, ['export-source', '--from', 'csv', 'a.csv', 'b.csv', '--map', 'map.json']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('a.csv: 4 rows read: 1 new, 0 already staged, 1 identical, 1 skipped, 1 rejected');
    expect(result.stdout).toContain('b.csv: 3 rows read: 1 new, 1 already staged, 0 identical, 1 skipped, 0 rejected');
    expect(result.stdout).toContain('All files: 7 rows read: 2 new, 1 already staged, 1 identical, 2 skipped, 1 rejected');
    const json = await run(dir, ['export-source', '--from', 'csv', 'a.csv', 'b.csv', '--map', 'map.json', '--json', '--reread']);
    const t = json.json!.totals as Record<string, number>;
    // Read again, both identical rows of a.csv are already staged (by the first run).
    expect(t).toMatchObject({ rowsRead: 7, staged: 0, alreadyStaged: 4, duplicates: 0, skipped: 2, rejected: 1, withdrawn: 0 });
    expect(t.staged! + t.alreadyStaged! + t.duplicates! + t.skipped! + t.rejected!).toBe(t.rowsRead);

    const report = await status(dir);
    expect(report.sourceTotals).toMatchObject({ rowsRead: 7, staged: 0, alreadyStaged: 4, duplicates: 0, skipped: 2, rejected: 1, withdrawn: 0 });
    for (const s of report.sources) expect(s.staged + s.alreadyStaged + s.duplicates + s.skipped + s.rejected).toBe(s.rowsRead);
    const text = await run(dir, ['status']);
    expect(text.stdout).toMatch(/file\s+format\s+status\s+size\s+read\s+new\s+already staged\s+identical\s+skipped\s+rejected\s+withdrawn/);
    expect(text.stdout).toMatch(/all files\s+7\s+0\s+4\s+0\s+2\s+1\s+0/);
    expect(text.stdout).not.toContain('known');
  });

  it('rejects --reason with an unknown reason is an error listing the known ones', async () => {
    const dir = tempDir();
    csv(dir, 'a.csv', ['a,u1,2024-01-01T00:00:00Z']);
    await run(dir, ['export-source', '--from', 'csv', 'a.csv']);
    const typo = await run(dir, ['rejects', '--reason', 'bad_timestamps']);
    expect(typo.code).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toContain('--reason bad_timestamps: not a reject reason. Known reasons:');
    expect(typo.stderr).toContain('  bad_timestamp\n');
    expect(typo.stderr).toContain('  implausible_timestamp\n');
    const known = await run(dir, ['rejects', '--reason', 'bad_timestamp']);
    expect([known.code, known.stdout.trim()]).toEqual([0, 'No rejected rows.']);
  });
});

describe('a file staged by an older migrate', () => {
  it('is read as it was then (untrimmed, no time bound) when the new options are not given, and stages nothing new; only an explicit value is a change', async () => {
    const dir = tempDir();
    csv(dir, 'e.csv', ['click,u1,2024-05-01T10:00:00Z, padded', 'old,u2,1990-01-01T00:00:00Z,x'], 'event,distinct_id,timestamp,note');
    // What an older migrate did: no trimming, no bound, and none of it recorded.
    expect((await run(dir, ['export-source', '--from', 'csv', 'e.csv', '--no-trim', '--min-time', '1980-01-01'])).code).toBe(0);
    forgetRecordedOptions(join(dir, 'm.db'), ['encoding', 'delimiter', 'trim', 'minTime']);
    const upgraded = await run(dir, ['export-source', '--from', 'csv', 'e.csv', '--json']);
    expect(upgraded.code).toBe(0);
    expect(upgraded.json!.totals).toMatchObject({ rowsRead: 2, staged: 0, alreadyStaged: 2, rejected: 0, withdrawn: 0 });
    expect(upgraded.json!.files[0]!.notices).toEqual([
      'kept as first staged: no bound (--min-time); pass --min-time 2000-01-01 to change it, a change refused unless --replace-changed',
      'kept as first staged: values not trimmed (--trim/--no-trim); pass --trim to change it, a change refused unless --replace-changed',
    ]);
    // The read recorded what it kept: the next run keeps it too, and says so in its summary.
    const text = await run(dir, ['export-source', '--from', 'csv', 'e.csv', '--reread']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('note: kept as first staged: values not trimmed (--trim/--no-trim); pass --trim to change it');
    expect(text.stdout).toContain('2 rows read: 0 new, 2 already staged');
    const trimmed = await run(dir, ['export-source', '--from', 'csv', 'e.csv', '--trim']);
    expect(trimmed.code).toBe(6);
    expect(trimmed.stderr).toContain('--trim/--no-trim: was values not trimmed, now values trimmed');
    const bounded = await run(dir, ['export-source', '--from', 'csv', 'e.csv', '--min-time', '2000-01-01']);
    expect(bounded.code).toBe(6);
    expect(bounded.stderr).toContain('--min-time: was no bound, now 2000-01-01');
    expect(stagedUuids(join(dir, 'm.db'))).toHaveLength(2);
  });
});

describe('staging a file again', () => {
  it('does not read a file unchanged since it was staged; a changed one (its time or edges), another option or --reread reads it again', async () => {
    const dir = tempDir();
    csv(dir, 'a.csv', ['a,u1,2024-01-01T00:00:00Z', 'b,u2,2024-01-02T00:00:00Z']);
    csv(dir, 'b.csv', ['c,u3,2024-01-03T00:00:00Z']);
    expect((await run(dir, ['export-source', '--from', 'csv', 'a.csv', 'b.csv'])).code).toBe(0);
    const again = await run(dir, ['export-source', '--from', 'csv', 'a.csv', 'b.csv', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toMatchObject({ files: [], unchanged: [join(dir, 'a.csv'), join(dir, 'b.csv')], totals: { rowsRead: 0 } });
    const text = await run(dir, ['export-source', '--from', 'csv', 'a.csv', 'b.csv']);
    expect(text.stdout).toContain(`2 sources unchanged since staged, not read again (e.g. ${join(dir, 'a.csv')}); --reread reads them`);
    // The same size, another byte inside the first MiB, the time put back: its edges tell it changed.
    const before = statSync(join(dir, 'b.csv'));
    csv(dir, 'b.csv', ['d,u3,2024-01-03T00:00:00Z']);
    utimesSync(join(dir, 'b.csv'), before.atime, before.mtime);
    const changed = await run(dir, ['export-source', '--from', 'csv', 'a.csv', 'b.csv', '--json']);
    expect(changed.json).toMatchObject({ unchanged: [join(dir, 'a.csv')], totals: { rowsRead: 1, staged: 1, withdrawn: 1 } });
    const otherOption = await run(dir, ['export-source', '--from', 'csv', 'a.csv', '--only-events', 'a', '--json']);
    // Another option is compared with the earlier read's, as ever: the file is not taken for unchanged.
    expect(otherOption.code).toBe(6);
    expect(otherOption.stderr).toContain('--only-events: was none, now a');
    const reread = await run(dir, ['export-source', '--from', 'csv', 'a.csv', 'b.csv', '--reread', '--json']);
    expect(reread.json).toMatchObject({ unchanged: [], totals: { rowsRead: 3, staged: 0, alreadyStaged: 3 } });
  });

  it('does not take a file read as another format, or by another command, for unchanged: that change is refused as any option', async () => {
    const dir = tempDir();
    const line = (n: number) => JSON.stringify({ event: 'e', distinct_id: `u${n}`, timestamp: `2024-01-0${n}T00:00:00Z`, properties: { n } });
    writeFileSync(join(dir, 'd.jsonl'), `${line(1)}\n${line(2)}\n`);
    expect((await run(dir, ['export-source', '--from', 'jsonl', 'd.jsonl'])).code).toBe(0);
    // A read by a migrate that did not record its format: the source's (jsonl) is taken.
    const store = StagingStore.open(join(dir, 'm.db'), { mustExist: true });
    store.db.prepare("UPDATE source_reads SET options = json_remove(options, '$.from')").run();
    store.close();
    const same = await run(dir, ['export-source', '--from', 'jsonl', 'd.jsonl', '--json']);
    expect(same.json).toMatchObject({ unchanged: [join(dir, 'd.jsonl')], totals: { rowsRead: 0 } });
    const otherFormat = await run(dir, ['export-source', '--from', 'posthog', 'd.jsonl']);
    expect(otherFormat.code, otherFormat.stderr).toBe(6);
    expect(otherFormat.stderr).toContain('--from: was export-source --from jsonl, now export-source --from posthog');
    const otherCommand = await run(dir, ['identify-users', '--from', 'jsonl', 'd.jsonl']);
    expect(otherCommand.code, otherCommand.stderr).toBe(6);
    expect(otherCommand.stderr).toContain('--from: was export-source --from jsonl, now identify-users --from jsonl');
    const replaced = await run(dir, ['export-source', '--from', 'posthog', 'd.jsonl', '--replace-changed', '--json']);
    expect(replaced.json).toMatchObject({ unchanged: [], totals: { rowsRead: 2, staged: 2, withdrawn: 2 } });
    expect(stagedUuids(join(dir, 'm.db'))).toHaveLength(2);
    const again = await run(dir, ['export-source', '--from', 'posthog', 'd.jsonl', '--json']);
    expect(again.json).toMatchObject({ unchanged: [join(dir, 'd.jsonl')], totals: { rowsRead: 0 } });
  });

  it('reads an archive again: an entry whose read failed is staged by the next run', async () => {
    const dir = tempDir();
    const line = (n: number) => `${JSON.stringify({ event: 'e', distinct_id: `u${n}`, timestamp: `2024-01-0${n}T00:00:00Z` })}\n`;
    writeFileSync(
      join(dir, 'export.zip'),
      makeZip([
        { name: 'a.jsonl', data: Buffer.from(line(1)), method: 'deflate' },
        { name: 'b.jsonl', data: Buffer.from(line(2)), method: 'deflate' },
      ]),
    );
    expect((await run(dir, ['export-source', '--from', 'jsonl', 'export.zip'])).code).toBe(0);
    // b.jsonl's read failed (as a stopped or refused read is undone): its rows are gone, the archive unchanged.
    const store = StagingStore.open(join(dir, 'm.db'), { mustExist: true });
    const readId = store.db.prepare("SELECT r.id FROM source_reads r JOIN sources s ON s.id = r.source_id WHERE s.path LIKE '%!b.jsonl'").pluck().get() as number;
    abandonRead(store, readId, 'failed');
    store.close();
    expect(stagedUuids(join(dir, 'm.db'))).toHaveLength(1);
    const again = await run(dir, ['export-source', '--from', 'jsonl', 'export.zip', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toMatchObject({ unchanged: [], totals: { rowsRead: 2, staged: 1, alreadyStaged: 1 } });
    expect(stagedUuids(join(dir, 'm.db'))).toHaveLength(2);
  });
});

describe('a folder holding a file that cannot be read', () => {
  it("says a gzipped Parquet file is gzipped, stages the folder's other files with their summaries, then fails naming it", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'export'));
    const line = (n: number) => JSON.stringify({ event: 'e', distinct_id: `u${n}`, timestamp: `2024-01-0${n}T00:00:00Z` });
    writeFileSync(join(dir, 'export', 'a.jsonl'), `${line(1)}\n`);
    writeFileSync(join(dir, 'export', 'b.jsonl.gz'), gzipSync(Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(64), Buffer.from('PAR1')])));
    writeFileSync(join(dir, 'export', 'c.jsonl'), `${line(2)}\n`);
    const result = await run(dir, ['export-source', '--from', 'jsonl', 'export']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('b.jsonl.gz: is a gzipped Parquet file, which cannot be read compressed');
    expect(result.stderr).toContain('gunzip b.jsonl.gz');
    expect(result.stdout).toContain('a.jsonl: 1 row read: 1 new');
    expect(result.stdout).toContain('c.jsonl: 1 row read: 1 new');
    expect(stagedUuids(join(dir, 'm.db'))).toHaveLength(2);
    // Named itself, it is the run's error.
    const named = await run(dir, ['export-source', '--from', 'jsonl', join('export', 'b.jsonl.gz')]);
    expect(named.code).toBe(3);
    expect(named.stderr).toContain('is a gzipped Parquet file');
  });
});
