/**
 * CSV files as people write them, through the built CLI: semicolons and tabs, headers in other
 * cases, spaces after commas, and folders holding other things.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportSource, stagingIn } from '../helpers/export-source.js';
import { FIXTURES, runCli } from '../helpers/run-cli.js';
import { readStaging, SOURCE_PROPERTIES_SQL } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const T = '2025-01-01T00:00:00Z';

function rows(staging: string): Array<{ event: string; distinct_id: string; properties: string }> {
  return readStaging(staging, (db) => db.prepare(`SELECT event, distinct_id, ${SOURCE_PROPERTIES_SQL} AS properties FROM events ORDER BY line`).all() as never);
}

describe('delimiters', () => {
  it('finds a semicolon or a tab from the header and says so; a comma says nothing', async () => {
    const dir = tempDir();
    const target = stagingIn(dir);
    writeFileSync(join(dir, 'semi.csv'), `event;distinct_id;timestamp;price\nbuy;u1;${T};"1,50"\n`);
    writeFileSync(join(dir, 'tabs.csv'), `event\tdistinct_id\ttimestamp\nview\tu2\t${T}\n`);
    const semi = await exportSource(target, ['--from', 'csv', 'semi.csv']);
    expect(semi.files[0]).toMatchObject({ staged: 1, notices: ['delimiter ";" found in the header (--delimiter to choose another)'] });
    const tabs = await exportSource(target, ['--from', 'csv', 'tabs.csv']);
    expect(tabs.files[0]).toMatchObject({ staged: 1, notices: ['delimiter tab found in the header (--delimiter to choose another)'] });
    expect(rows(target.staging)).toEqual([
      { event: 'buy', distinct_id: 'u1', properties: '{"price":"1,50"}' },
      { event: 'view', distinct_id: 'u2', properties: '{}' },
    ]);
    const text = await runCli(['export-source', '--from', 'csv', 'semi.csv', '--staging', target.staging, '--reread'], { cwd: dir });
    expect(text.stdout).toContain('  note: delimiter ";" found in the header (--delimiter to choose another)');
  });

  it('a header read as one column names the delimiter to pass; a changed delimiter on a staged file is refused', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'semi.csv'), `event;distinct_id;timestamp\nbuy;u1;${T}\n`);
    const wrong = await runCli(['export-source', '--from', 'csv', 'semi.csv', '--delimiter', ',', '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toBe(
      'error: semi.csv:1: the header has no "event", "distinct_id", "timestamp" column (found: event;distinct_id;timestamp); the header is one column holding ";": pass --delimiter \';\'; use --column role=header to name it\n',
    );
    await exportSource(stagingIn(dir), ['--from', 'csv', 'semi.csv', '--delimiter', ';']);
    const changed = await runCli(['export-source', '--from', 'csv', 'semi.csv', '--delimiter', '|', '--staging', join(dir, 'migration.db')], { cwd: dir });
    expect(changed.code).toBe(6);
    expect(changed.stderr).toContain("--delimiter: was ';', now '|'");
    // The same delimiter, found again rather than given, is the same read.
    expect((await exportSource(stagingIn(dir), ['--from', 'csv', 'semi.csv', '--reread'])).totals).toMatchObject({ staged: 0, alreadyStaged: 1 });
  });
});

describe('headers and spaces', () => {
  it('matches the standard columns ignoring case; other columns keep their header as written', async () => {
    const dir = tempDir();
    const target = stagingIn(dir);
    writeFileSync(join(dir, 'caps.csv'), `Event,DISTINCT_ID,Timestamp,Plan\nSignup,u1,${T},Pro\n`);
    expect((await exportSource(target, ['--from', 'csv', 'caps.csv'])).totals.staged).toBe(1);
    expect(rows(target.staging)).toEqual([{ event: 'Signup', distinct_id: 'u1', properties: '{"Plan":"Pro"}' }]);
    writeFileSync(join(dir, 'twice.csv'), `EVENT,Event,distinct_id,timestamp\na,b,u,${T}\n`);
    const twice = await runCli(['export-source', '--from', 'csv', 'twice.csv', '--staging', target.staging], { cwd: dir });
    expect(twice.code).toBe(3);
    expect(twice.stderr).toContain('the header has "EVENT" and "Event": name the event column with --column event=<header>');
  });

  it('trims spaces around unquoted values, so " u1" is the same user as "u1"; quoted spaces stay; --no-trim keeps them and is recorded', async () => {
    const dir = tempDir();
    const target = stagingIn(dir);
    writeFileSync(join(dir, 'spaced.csv'), `event, distinct_id, timestamp, note\nclick, u1, ${T}, "  padded  "\nclick,u1,${T}, x \n`);
    expect((await exportSource(target, ['--from', 'csv', 'spaced.csv'])).totals.staged).toBe(2);
    expect(rows(target.staging)).toEqual([
      { event: 'click', distinct_id: 'u1', properties: '{"note":"  padded  "}' },
      { event: 'click', distinct_id: 'u1', properties: '{"note":"x"}' },
    ]);
    const untrimmed = await runCli(['export-source', '--from', 'csv', 'spaced.csv', '--no-trim', '--staging', target.staging], { cwd: dir });
    expect(untrimmed.code).toBe(6);
    expect(untrimmed.stderr).toContain('--trim/--no-trim: was values trimmed, now values not trimmed');
    const kept = await exportSource(stagingIn(join(dir)), ['--from', 'csv', 'spaced.csv', '--no-trim', '--staging', join(dir, 'other.db')]);
    expect(kept.totals).toMatchObject({ rowsRead: 2 });
    expect(rows(join(dir, 'other.db')).map((r) => r.distinct_id)).toEqual([' u1', 'u1']);
  });
});

describe('folders', () => {
  it('a zip archive holding no CSV in a folder is skipped with a notice, as other files are', async () => {
    const dir = tempDir();
    const folder = join(dir, 'exports');
    mkdirSync(folder);
    copyFileSync(join(FIXTURES, 'sample-events.csv'), join(folder, 'events.csv'));
    copyFileSync(join(FIXTURES, 'amplitude', 'export-123456.zip'), join(folder, 'amplitude.zip'));
    const result = await runCli(['export-source', '--from', 'csv', 'exports', '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('note: exports/amplitude.zip: skipped, a zip archive with no source files in it (looked for names ending .csv, optionally .gz)');
    expect(result.stdout).toContain('3,000 new');
    const named = await runCli(['export-source', '--from', 'csv', 'exports/amplitude.zip', '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(named.code).toBe(3);
    expect(named.stderr).toContain('exports/amplitude.zip: no source files in this zip archive');
  });
});

describe('read in pieces by worker threads', () => {
  it('gives what reading in-process gives: semicolons, CR line ends, quoted line ends, bad bytes, a JSON array', async () => {
    const dir = tempDir();
    // Pieces of 64 Ki characters (a test hook, see stage-run.ts): about 400 KB of CSV and 700 KB of JSON make several each.
    const pieces = { MIGRATE_TEST_PIECE_CHARS: String(64 * 1024) };
    const parts: Buffer[] = [Buffer.from('Event;Distinct_ID;Timestamp;note\r')];
    for (let i = 0; i < 10_000; i++) {
      if (i % 2_499 === 5) parts.push(Buffer.from(`view;caf`), Buffer.from([0xe9]), Buffer.from(`;${T};x\r`));
      else parts.push(Buffer.from(i % 3 === 0 ? `view; u${i} ;${T};"two\rlines; ""quoted"""\r` : `buy;u${i};${T};plain\r`));
    }
    writeFileSync(join(dir, 'big.csv'), Buffer.concat(parts));
    const events = Array.from({ length: 7_500 }, (_, i) => ({ event: 'e', distinct_id: i % 1_750 === 3 ? '' : `u${i}`, timestamp: T, properties: { i } }));
    writeFileSync(join(dir, 'big.json'), JSON.stringify(events, null, 2));
    const summaries = [];
    for (const workers of ['0', '2']) {
      const target = { dir, staging: join(dir, `w${workers}.db`) };
      const csv = await exportSource(target, ['--from', 'csv', 'big.csv', '--workers', workers], pieces);
      const json = await exportSource(target, ['--from', 'jsonl', 'big.json', '--workers', workers], pieces);
      const rejects = await runCli(['rejects', '--json', '--staging', target.staging], { cwd: dir });
      summaries.push({
        csv: csv.totals,
        json: json.totals,
        rejects: (JSON.parse(rejects.stdout) as Array<{ line: number; reason: string }>).map((r) => [r.line, r.reason]),
        rows: readStaging(target.staging, (db) => db.prepare('SELECT count(*) AS n, count(DISTINCT distinct_id) AS users, sum(line) AS lines FROM events').get()),
      });
    }
    expect(summaries[0]!.csv).toMatchObject({ rowsRead: 10_000, staged: 9_996, rejectedByReason: { invalid_utf8: 4 } });
    expect(summaries[0]!.json).toMatchObject({ rowsRead: 7_500, staged: 7_495, rejectedByReason: { missing_distinct_id: 5 } });
    // Row i begins on line 2 + i + ceil(i / 3): every third row before it holds a quoted line end.
    expect(summaries[0]!.rejects.slice(0, 4)).toEqual([
      [9, 'invalid_utf8'],
      [3_341, 'invalid_utf8'],
      [6_673, 'invalid_utf8'],
      [10_005, 'invalid_utf8'],
    ]);
    expect(summaries[1]).toEqual(summaries[0]);
  }, 120_000);
});
