import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FIXTURES, REPO_ROOT, runCli, startCli } from '../helpers/run-cli.js';
import { readStaging, stagedUuids } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

/** Text staged so far by the latest read of a staging file being written (0 while there is none). */
function readProgress(staging: string): number {
  try {
    return readStaging(staging, (db) => (db.prepare('SELECT max(progress_chars) FROM source_reads').pluck().get() as number | null) ?? 0);
  } catch {
    return 0;
  }
}
const SAMPLE = join(FIXTURES, 'sample-events.csv');

/** Pieces of 64 Ki characters instead of 1 Mi (a test hook, see stage-run.ts): a file of 1 MB makes more than the workers hold. */
const PIECES = { MIGRATE_TEST_PIECE_CHARS: String(64 * 1024) };

async function exportJson(dir: string, args: string[], env: Record<string, string> = {}) {
  const result = await runCli(['export-source', '--staging', join(dir, 'm.db'), '--json', ...args], { cwd: dir, env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

async function status(dir: string) {
  const result = await runCli(['status', '--json', '--staging', join(dir, 'm.db')], { cwd: dir });
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

describe('export-source on the bundled sample', () => {
  it('stages every row, maps pageview to $pageview, and a second run stages nothing new', async () => {
    const dir = tempDir();
    const first = await runCli(['export-source', '--from', 'csv', SAMPLE, '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('3,000 new, 0 already staged');
    const report = await status(dir);
    expect(report.events.count).toBe(3000);
    expect(report.topEvents[0].name).toBe('$pageview');
    expect(report.topEvents.map((e: { name: string }) => e.name)).not.toContain('pageview');
    expect(report.events.first).toBe('2025-09-01T00:10:32.975Z');

    const unchanged = await runCli(['export-source', '--from', 'csv', SAMPLE, '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(unchanged.code).toBe(0);
    expect(unchanged.stdout).toContain(`1 source unchanged since staged, not read again (${SAMPLE}); --reread reads them`);
    const second = await runCli(['export-source', '--from', 'csv', SAMPLE, '--staging', join(dir, 'm.db'), '--reread'], { cwd: dir });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('0 new, 3,000 already staged');
    expect((await status(dir)).events.count).toBe(3000);
  });

  it('stages only the new rows of a file that grew', async () => {
    const dir = tempDir();
    const lines = readFileSync(SAMPLE, 'utf8').split('\r\n');
    const file = join(dir, 'events.csv');
    writeFileSync(file, lines.slice(0, 1001).join('\r\n') + '\r\n');
    const before = await exportJson(dir, ['--from', 'csv', file]);
    copyFileSync(SAMPLE, file);
    const after = await exportJson(dir, ['--from', 'csv', file]);
    expect(after.totals.alreadyStaged).toBe(before.totals.staged);
    expect(before.totals.staged + after.totals.staged).toBe(3000);
  });

  it('reads gzip transparently and gives the same uuids as the plain file', async () => {
    const dir = tempDir();
    const gz = join(dir, 'events.csv.gz');
    writeFileSync(gz, gzipSync(readFileSync(SAMPLE)));
    expect((await exportJson(dir, ['--from', 'csv', gz])).totals.staged).toBe(3000);
    expect((await exportJson(dir, ['--from', 'csv', SAMPLE])).totals).toMatchObject({ staged: 0, alreadyStaged: 3000 });
  });

  it('stages the JSON-lines sample', async () => {
    const dir = tempDir();
    const result = await exportJson(dir, ['--from', 'jsonl', join(FIXTURES, 'sample-events.jsonl')]);
    expect(result.totals).toMatchObject({ rowsRead: 400, staged: 400, rejected: 0 });
  });
});

describe('export-source on bad rows', () => {
  it('rejects each bad row with file, line and reason, and stages the good ones', async () => {
    const dir = tempDir();
    const file = join(dir, 'bad.csv');
    copyFileSync(join(FIXTURES, 'malformed-events.csv'), file);
    const result = await exportJson(dir, ['--from', 'csv', file]);
    expect(result.totals).toMatchObject({ rowsRead: 16, staged: 3, duplicates: 1, rejected: 12 });
    const rejects = await runCli(['rejects', '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(rejects.code).toBe(0);
    const lines = rejects.stdout.trim().split('\n');
    expect(lines).toEqual(
      [
        'bad.csv:3 missing_event event: event name is missing or empty',
        'bad.csv:4 missing_distinct_id distinct_id: distinct_id is missing or empty',
        'bad.csv:5 bad_timestamp timestamp: "yesterday" is not ISO 8601 or epoch time',
        expect.stringMatching(/^bad\.csv:6 timestamp_without_zone timestamp: .*--timezone/),
        'bad.csv:7 future_timestamp timestamp: 2999-01-01T00:00:00.000Z is more than 23 hours in the future (PostHog would replace it with the time it arrives)',
        'bad.csv:8 bad_uuid uuid: "not-a-uuid" is not a usable UUID',
        'bad.csv:9 bad_properties properties: must be a JSON object, got an array',
        'bad.csv:10 duplicate_property properties: property "plan" is both a column and a key of the properties JSON',
        expect.stringMatching(/^bad\.csv:11 bad_properties properties: not valid JSON/),
        'bad.csv:12 bad_csv expected 6 fields as in the header, found 7',
        expect.stringMatching(/^bad\.csv:13 bad_csv unexpected "x" after a closing quote/),
        expect.stringMatching(/^bad\.csv:17 distinct_id_too_long distinct_id: distinct_id has 201 characters/),
      ].slice(0, lines.length),
    );
    expect(lines).toHaveLength(12);
  });

  it('stages rows without a zone once --timezone is given', async () => {
    const dir = tempDir();
    const file = join(dir, 'naive.csv');
    writeFileSync(file, 'event,distinct_id,timestamp\nsigned_up,u1,2025-03-01 10:00:00\n');
    const first = await runCli(['export-source', '--from', 'csv', file, '--staging', join(dir, 'm.db'), '--json'], { cwd: dir });
    expect(first.code).toBe(3);
    expect(JSON.parse(first.stdout).totals.rejectedByReason).toEqual({ timestamp_without_zone: 1 });
    expect((await exportJson(dir, ['--from', 'csv', file, '--timezone', 'Europe/Paris'])).totals.staged).toBe(1);
    expect((await status(dir)).events.first).toBe('2025-03-01T09:00:00.000Z');
    const refused = await runCli(['export-source', '--from', 'csv', file, '--timezone', 'UTC', '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('was staged earlier with other options that shape its events:\n  --timezone: was Europe/Paris, now UTC');
  });

  it('applies a mapping file and reports its mistakes as path: message', async () => {
    const dir = tempDir();
    const map = join(dir, 'map.json');
    writeFileSync(map, JSON.stringify({ events: { signed_up: 'user signed up', debug: null }, properties: { plan: 'tier' } }));
    const file = join(dir, 'e.csv');
    writeFileSync(file, 'event,distinct_id,timestamp,plan\nsigned_up,u1,2025-03-01T10:00:00Z,pro\ndebug,u1,2025-03-01T10:00:00Z,x\npageview,u1,2025-03-01T10:00:01Z,\n');
    const result = await exportJson(dir, ['--from', 'csv', file, '--map', map]);
    expect(result.totals).toMatchObject({ staged: 2, skipped: 1 });
    expect((await status(dir)).topEvents.map((e: { name: string }) => e.name).sort()).toEqual(['$pageview', 'user signed up']);

    writeFileSync(map, JSON.stringify({ events: { a: '' }, colours: {} }));
    const bad = await runCli(['export-source', '--from', 'csv', file, '--map', map, '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('events.a: must not be empty');
  });
});

describe('export-source on worker threads', () => {
  it('gives the same counts, rejects and uuids as in-process staging', async () => {
    const results: string[] = [];
    // About 1 MB in pieces of 64 KiB: more pieces than the workers hold, so rows of one file
    // are read by every worker and (with one worker) by this thread too. Generated once, copied into each run's directory.
    const source = join(tempDir(), 'generated.csv');
    execFileSync(process.execPath, [join(REPO_ROOT, 'bench/generate-source.mjs'), source, '6000']);
    // With one worker, this thread also reads pieces whenever the worker has two waiting.
    for (const workers of ['0', '1', '2']) {
      const dir = tempDir();
      const bad = join(dir, 'bad.csv');
      copyFileSync(join(FIXTURES, 'malformed-events.csv'), bad);
      const sample = join(dir, 'sample.csv');
      copyFileSync(SAMPLE, sample);
      const generated = join(dir, 'generated.csv');
      copyFileSync(source, generated);
      const summary = await exportJson(dir, ['--from', 'csv', sample, bad, generated, '--workers', workers], PIECES);
      const rejects = await runCli(['rejects', '--staging', join(dir, 'm.db')], { cwd: dir });
      const report = await status(dir);
      // stagedUuids lists them in staging order: file order, whichever thread read each piece.
      results.push(JSON.stringify([summary.totals, rejects.stdout, report.events, report.topEvents, stagedUuids(join(dir, 'm.db'))]));
    }
    expect(results[1]).toBe(results[0]);
    expect(results[2]).toBe(results[0]);
    expect(JSON.parse(results[0]!)[0]).toMatchObject({ staged: 9003, rejected: 12 });
  });
});

describe('export-source interrupted', () => {
  it('Ctrl-C while workers stage a file: exit 130, the file partial, the next run resumes it', async () => {
    const dir = tempDir();
    const file = join(dir, 'big.csv');
    // About 2 MB, 32 pieces of 64 KiB: the run is interrupted at its first piece, well before its end.
    execFileSync(process.execPath, [join(REPO_ROOT, 'bench/generate-source.mjs'), file, '12000']);
    const staging = join(dir, 'm.db');
    const run = startCli(['export-source', '--from', 'csv', file, '--workers', '1', '--staging', staging], { cwd: dir, env: PIECES });
    // Interrupt once a piece is written: at the change of the write-ahead log that records the
    // read's first progress (an event of the file system, not a timer).
    let sent = false;
    const watcher = watch(dir, (_event, name) => {
      if (sent || name !== 'm.db-wal' || readProgress(staging) === 0) return;
      sent = true;
      run.child.kill('SIGINT');
    });
    const result = await run.done;
    watcher.close();
    expect(result.code, result.stderr).toBe(130);
    const line = Number(/staged up to line (\d+)/.exec(result.stderr)?.[1]);
    expect(line).toBeGreaterThan(1);
    expect(result.stderr).toContain('Run the same command again: it resumes from there');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const report = await status(dir);
    expect(report.sources).toMatchObject([{ status: 'partial', progressLine: line }]);
    expect(report.events.count).toBe(line - 2);
    const again = await runCli(['export-source', '--from', 'csv', file, '--workers', '1', '--staging', staging], { cwd: dir, env: PIECES });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`resumed at line ${line.toLocaleString('en-US')}`);
    expect(again.stdout).toContain('12,000 rows read: 12,000 new, 0 already staged, 0 identical, 0 skipped, 0 rejected');
    expect((await status(dir)).events.count).toBe(12000);
  });
});

describe('export-source: a uuid staged earlier with other content', () => {
  it.each(['0', '2'])('is a reject that keeps the row as written (--workers %s)', async (workers) => {
    const dir = tempDir();
    const uuid = '0190a5b2-1c2d-7e3f-8a4b-5c6d7e8f9a0b';
    const first = join(dir, 'first.csv');
    writeFileSync(first, `event,distinct_id,timestamp,uuid,note\nsigned_up,u1,2025-03-01T10:00:00Z,${uuid},a\n`);
    const second = join(dir, 'second.csv');
    const row = `signed_up,u1,2025-03-01T10:00:00Z,${uuid},"two\nlines"`;
    writeFileSync(second, `event,distinct_id,timestamp,uuid,note\nsigned_up,u2,2025-03-01T10:00:00Z,,b\n${row}\n`);
    await exportJson(dir, ['--from', 'csv', first, '--workers', workers]);
    const summary = await exportJson(dir, ['--from', 'csv', second, '--workers', workers]);
    expect(summary.totals).toMatchObject({ staged: 1, rejected: 1, rejectedByReason: { conflicts_with_staged: 1 } });
    const rejects = await runCli(['rejects', '--json', '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(JSON.parse(rejects.stdout)).toMatchObject([{ line: 3, reason: 'conflicts_with_staged', raw: row }]);
  });
});

describe('export-source on unusable files', () => {
  const cases: Array<[string, (dir: string) => string, RegExp]> = [
    ['a missing file', (dir) => join(dir, 'nope.csv'), /nope\.csv: no such file/],
    [
      'a directory with no source files',
      (dir) => {
        mkdirSync(join(dir, 'd'));
        writeFileSync(join(dir, 'd', 'notes.md'), 'x');
        return join(dir, 'd');
      },
      /d: no source files in this directory \(looked for names ending \.csv, \.zip, optionally \.gz; it has 1 other file\(s\), e\.g\. .*notes\.md\)/,
    ],
    [
      'a binary file',
      (dir) => {
        writeFileSync(join(dir, 'b.csv'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
        return join(dir, 'b.csv');
      },
      /binary file/,
    ],
    [
      'a CSV without required columns',
      (dir) => {
        writeFileSync(join(dir, 'c.csv'), 'name,user\na,b\n');
        return join(dir, 'c.csv');
      },
      /c\.csv:1: the header has no "event", "distinct_id", "timestamp" column/,
    ],
    [
      'an empty file',
      (dir) => {
        writeFileSync(join(dir, 'e.csv'), '');
        return join(dir, 'e.csv');
      },
      /e\.csv: the file is empty/,
    ],
    [
      'a Latin-1 header',
      (dir) => {
        writeFileSync(join(dir, 'l.csv'), Buffer.from('event,distinct_id,timestamp,caf\xe9\nx,u,1,y\n', 'latin1'));
        return join(dir, 'l.csv');
      },
      /l\.csv:1: the header row is not valid text: byte 0xE9 at offset 31 of the row is not valid UTF-8/,
    ],
  ];

  it.each(cases)('%s: clear message, exit 3, nothing staged from it', async (_name, make, message) => {
    const dir = tempDir();
    const file = make(dir);
    const result = await runCli(['export-source', '--from', 'csv', SAMPLE, file, '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(message);
    const report = await runCli(['status', '--json', '--staging', join(dir, 'm.db')], { cwd: dir });
    if (report.code === 0) expect(JSON.parse(report.stdout).events.count % 3000).toBe(0);
  });

  it('refuses a database that is not a staging file', async () => {
    const dir = tempDir();
    const file = join(dir, 'other.db');
    writeFileSync(file, 'this is not sqlite at all, just text long enough to be read as a header');
    const result = await runCli(['status', '--staging', file], { cwd: dir });
    expect(result.code).toBe(7);
    expect(result.stderr).toContain('cannot be used as a staging file');
  });

  it('says how to start when there is no staging file', async () => {
    const dir = tempDir();
    const result = await runCli(['status', '--staging', join(dir, 'none.db')], { cwd: dir });
    expect(result.code).toBe(7);
    expect(result.stderr).toContain('Run `migrate export-source` first');
  });

  it('never stores a key found in the source', async () => {
    const dir = tempDir();
    const file = join(dir, 'k.jsonl');
    writeFileSync(file, JSON.stringify({ event: 'e', distinct_id: 'd', timestamp: '2025-01-01T00:00:00Z', api_key: 'phc_leakedkey123456', properties: {} }) + '\n');
    await exportJson(dir, ['--from', 'jsonl', file]);
    for (const name of ['m.db', 'm.db-wal']) {
      try {
        expect(readFileSync(join(dir, name)).includes('phc_leakedkey123456')).toBe(false);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  });
});

describe('command line', () => {
  it.each<[string[], number, RegExp]>([
    [['--help'], 0, /export-source/],
    [['export-source', 'x.csv'], 2, /--from <format>' not specified/],
    [['export-source', '--from', 'xml', 'x.csv'], 2, /Allowed choices are csv, jsonl/],
    [['export-source', '--from', 'csv', 'x.csv', '--column', 'nope=x'], 2, /--column nope=x: expected <role>=<header>/],
    [['export-source', '--from', 'csv', 'x.csv', '--timezone', 'Mars/Base'], 2, /not an IANA time zone/],
    [['rejects', '--limit', '0'], 2, /--limit must be an integer >= 1/],
    [['frobnicate'], 2, /unknown command/],
  ])('%j exits %i', async (args, code, message) => {
    const result = await runCli(args, { cwd: tempDir() });
    expect(result.code).toBe(code);
    expect(result.stdout + result.stderr).toMatch(message);
  });
});
