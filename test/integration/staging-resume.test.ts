/**
 * A file staged part-way, then killed (SIGKILL, as a power cut would), then staged again:
 * resumed at its last written piece, every row staged once, and the same result as a run that
 * was never interrupted. The kill is a test hook (MIGRATE_TEST_KILL_AFTER_PIECES) that fires
 * once a given number of pieces is committed, never a timer; another (MIGRATE_TEST_PIECE_CHARS)
 * cuts pieces of 64 KiB instead of 1 MiB, so files of a quarter MiB hold four of them. The
 * shared run is a real kill of a process of its own; the others run in the test's process with
 * the hook's stand-in (test/helpers/in-process-kill.ts), checked here to leave what the kill leaves.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startCli, type CliOptions } from '../helpers/run-cli.js';
import { readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { STAGED_PROPERTIES_TEXT, STAGED_PROPERTIES } from '../helpers/staged-properties.js';

const tempDir = useTempDir();

/** Pieces of 64 Ki characters (bytes for UTF-8 JSON lines) in every staging run of this file. */
const PIECES = { MIGRATE_TEST_PIECE_CHARS: String(64 * 1024) };
/** Rows of the test files: about 190 bytes a row, so four pieces. */
const ROWS = 1400;
/**
 * Rows of a file staged on a worker thread: pieces read ahead on a thread share a commit until
 * it holds 4,096 rows (piece-pool.ts), so the file goes on past the first commit.
 */
const ROWS_ON_WORKER = 6000;
/** Every 701st row has a placeholder time: rejects all along the file. */
const REJECT_EVERY = 701;
/** Rows with a placeholder time (rejected) among the first `rows`. */
const rejectedOf = (rows: number): number => Math.ceil((rows - 5) / REJECT_EVERY);
/** Of ROWS: 5 and 706. */
const REJECTED = rejectedOf(ROWS);
const ROWS_TEXT = ROWS.toLocaleString('en-US');
const STAGED_TEXT = (ROWS - REJECTED).toLocaleString('en-US');

function csvText(rows: number, label = 'x'): string {
  const lines = ['event,distinct_id,timestamp,note'];
  for (let i = 0; i < rows; i++) {
    const time = i % REJECT_EVERY === 5 ? '0' : new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
    lines.push(`ev${i % 5},user_${i % 997},${time},"${label} ${'n'.repeat(120)} ""quoted"" ${i}"`);
  }
  return lines.join('\n') + '\n';
}

function jsonlText(rows: number): string {
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    lines.push(
      JSON.stringify({ event: `ev${i % 5}`, distinct_id: `user_${i % 997}`, timestamp: i % REJECT_EVERY === 5 ? 0 : Date.UTC(2024, 0, 1) + i * 60_000, properties: { note: 'n'.repeat(120), i } }),
    );
  }
  return lines.join('\n') + '\n';
}

async function stage(dir: string, staging: string, args: string[], env: Record<string, string> = {}, options: Pick<CliOptions, 'ownProcess'> = {}) {
  const result = await runCli(['export-source', '--staging', join(dir, staging), ...args], { cwd: dir, env: { ...PIECES, ...env }, ...options });
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return result;
}

/**
 * Every staged event with its line, and every reject, in staging order: what two runs must agree
 * on (each staging file has its own $import_run, the same on all its rows).
 */
function contents(staging: string) {
  return readStaging(staging, (db) => ({
    events: db
      .prepare(`SELECT hex(uuid) AS uuid, line, event, timestamp_ms AS ts, json_remove(${STAGED_PROPERTIES_TEXT}, '$."$import_run"') AS p,
                       json_extract(${STAGED_PROPERTIES}, '$."$import_run"') = (SELECT value FROM meta WHERE key = 'import_run') AS ownRun FROM events ORDER BY seq`)
      .all() as unknown[],
    rejects: db.prepare('SELECT line, field, reason, message FROM rejects ORDER BY line').all() as unknown[],
  }));
}

/** An ISO time: when a run did something, which two runs never share. */
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * Every row of every table but the events and their property blocks (compared by `contents`),
 * as text, sorted: the staging file's own run id, the times and the lock aside.
 */
function everyRow(staging: string): Record<string, string[]> {
  return readStaging(staging, (db) => {
    const run = (db.prepare("SELECT value FROM meta WHERE key = 'import_run'").get() as { value: string }).value;
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('events', 'property_blocks') ORDER BY name").all() as Array<{ name: string }>).map((t) => t.name);
    const text = (value: unknown) => (value === run ? '<run>' : typeof value === 'string' && TIME.test(value) ? '<time>' : value);
    const rows = (table: string) =>
      (db.prepare(`SELECT * FROM "${table}"`).all() as Array<Record<string, unknown>>)
        .filter((row) => !(table === 'meta' && row.key === 'writer_lock'))
        .map((row) => JSON.stringify(row, (_key, value: unknown) => text(value)))
        .sort();
    return Object.fromEntries(tables.map((table) => [table, rows(table)]));
  });
}

/**
 * big.csv (ROWS rows) in a directory of its own, staged with `--workers 0` and killed after its
 * first piece (a real SIGKILL of a process of its own), once for the file: the tests that
 * resume such a run each resume a copy of it.
 */
let killedCsv: Promise<{ dir: string; killed: string }> | undefined;
const killedCsvDirs: string[] = [];
afterAll(() => {
  for (const dir of killedCsvDirs) rmSync(dir, { recursive: true, force: true });
});

/** A copy, as `name` beside it, of the staging file of big.csv killed after its first piece: its WAL too, as the kill left them. */
async function copyOfKilledCsv(name: string): Promise<{ dir: string; staging: string }> {
  killedCsv ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrate-test-resume-'));
    killedCsvDirs.push(dir);
    writeFileSync(join(dir, 'big.csv'), csvText(ROWS));
    const killed = await stage(dir, 'killed.db', ['big.csv', '--from', 'csv', '--workers', '0'], { MIGRATE_TEST_KILL_AFTER_PIECES: '1' }, { ownProcess: true });
    expect(killed.signal).toBe('SIGKILL');
    return { dir, killed: join(dir, 'killed.db') };
  })();
  const { dir, killed } = await killedCsv;
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(killed + suffix)) copyFileSync(killed + suffix, join(dir, name) + suffix);
  return { dir, staging: join(dir, name) };
}

/** Staged into `staging` (a name in `dir`) and killed after `pieces` pieces, or (`pieces` 'shared') a copy of the shared killed CSV run. */
async function killedThenResumed(dir: string, file: string, args: string[], pieces: number | 'shared', staging = 'm.db') {
  if (pieces === 'shared') await copyOfKilledCsv(staging);
  else expect((await stage(dir, staging, [file, ...args], { MIGRATE_TEST_KILL_AFTER_PIECES: String(pieces) })).signal).toBe('SIGKILL');
  const partial = JSON.parse((await runCli(['status', '--json', '--staging', join(dir, staging)], { cwd: dir })).stdout);
  expect(partial.sources).toMatchObject([{ status: 'partial' }]);
  const line = partial.sources[0].progressLine as number;
  expect(line).toBeGreaterThan(1);
  const resumed = await stage(dir, staging, [file, ...args, '--json']);
  expect(resumed.code, resumed.stderr).toBe(0);
  const whole = await stage(dir, `whole-${staging}`, [file, ...args, '--json']);
  expect(whole.code).toBe(0);
  return { line, partial, resumed: JSON.parse(resumed.stdout), whole: JSON.parse(whole.stdout) };
}

describe('a staging run killed part-way, then run again', () => {
  it.each([
    // The shared run killed after its first piece (copyOfKilledCsv), as the other cases' runs are.
    ['a CSV file, in-process', 'big.csv', () => csvText(ROWS), ['--workers', '0'], ROWS, true],
    ['a CSV file, on a worker thread', 'big.csv', () => csvText(ROWS_ON_WORKER), ['--workers', '1'], ROWS_ON_WORKER],
    ['a gzip CSV file', 'big.csv.gz', () => gzipSync(csvText(ROWS)), ['--workers', '0']],
    ['a JSON-lines file', 'big.jsonl', () => jsonlText(ROWS), ['--workers', '0']],
    // Text decoded from another encoding: the point recorded is in the decoded text, checked against it again.
    [
      'a UTF-16 CSV file with a byte-order mark and CRLF line ends',
      'utf16.csv',
      () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(csvText(ROWS, 'é').replaceAll('\n', '\r\n'), 'utf16le')]),
      ['--workers', '0'],
    ],
    ['a Latin-1 CSV file with lone CR line ends (--encoding latin1)', 'latin1.csv', () => Buffer.from(csvText(ROWS, 'é').replaceAll('\n', '\r'), 'latin1'), ['--workers', '0', '--encoding', 'latin1']],
    ['a gzip JSON-lines file with CRLF line ends', 'big.jsonl.gz', () => gzipSync(jsonlText(ROWS_ON_WORKER).replaceAll('\n', '\r\n')), ['--workers', '1'], ROWS_ON_WORKER],
  ] as Array<[string, string, () => string | Buffer, string[], number?, boolean?]>)(
    '%s resumes at its last piece, every row once, as if never interrupted',
    async (_name, name, content, args, rows = ROWS, shared = false) => {
      const dir = shared ? (await copyOfKilledCsv('each.db')).dir : tempDir();
      if (!shared) writeFileSync(join(dir, name), content());
      const staging = shared ? 'each.db' : 'm.db';
      const from = name.includes('.csv') ? 'csv' : 'jsonl';
      const { line, partial, resumed, whole } = await killedThenResumed(dir, name, ['--from', from, ...args], shared ? 'shared' : 1, staging);
      expect(partial.events.count).toBeGreaterThan(0);
      expect(partial.events.count).toBeLessThan(rows);
      expect(resumed.files[0].resumedAtLine).toBe(line);
      const { elapsedMs: _a, files: resumedFiles, ...resumedRest } = resumed;
      const { elapsedMs: _b, files: wholeFiles, ...wholeRest } = whole;
      expect({ ...resumedRest, staging: '' }).toEqual({ ...wholeRest, staging: '' });
      const rejected = rejectedOf(rows);
      expect(resumedRest.totals).toMatchObject({ rowsRead: rows, staged: rows - rejected, rejected, rejectedByReason: { implausible_timestamp: rejected } });
      const { resumedAtLine, rowsReadBeforeResume, ...resumedFile } = resumedFiles[0];
      expect(resumedAtLine).toBe(line);
      expect(rowsReadBeforeResume).toBe(partial.sources[0].rowsRead);
      expect(resumedFile).toEqual(wholeFiles[0]);
      expect(contents(join(dir, staging))).toEqual(contents(join(dir, `whole-${staging}`)));
    },
  );

  it('says "resumed at line N", and import refuses while a file is partial', async () => {
    const { dir, staging } = await copyOfKilledCsv('said.db');
    const text = await runCli(['status', '--staging', staging], { cwd: dir });
    const line = Number(/partial, to line ([\d,]+)/.exec(text.stdout)?.[1]?.replaceAll(',', ''));
    expect(line).toBeGreaterThan(1);
    expect(text.stdout).toContain('A partial read is resumed by running the same staging command again on its file.');
    writeFileSync(join(dir, 'migrate.config.json'), JSON.stringify({ projects: { test: { role: 'test', host: 'http://127.0.0.1:9', apiKey: 'phc_test' } } }));
    const refused = await runCli(['import', '--project', 'test', '--staging', staging], { cwd: dir });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain(`a source file is only partly staged:\n  ${join(dir, 'big.csv')}: export-source interrupted at line ${line}`);
    expect(refused.stderr).toContain('run the same staging command again on each file; it resumes where it stopped');

    const resumed = await stage(dir, 'said.db', ['big.csv', '--from', 'csv', '--workers', '0']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(`resumed at line ${line.toLocaleString('en-US')}`);
    expect(resumed.stdout).toContain(`big.csv: ${ROWS_TEXT} rows read: ${STAGED_TEXT} new, 0 already staged, 0 identical, 0 skipped, ${REJECTED} rejected`);
    // The resumed read recorded the file as it is: the same file is not read again, unless asked.
    const unchanged = await stage(dir, 'said.db', ['big.csv', '--from', 'csv', '--workers', '0']);
    expect(unchanged.stdout).toContain('1 source unchanged since staged, not read again');
    const again = await stage(dir, 'said.db', ['big.csv', '--from', 'csv', '--workers', '0', '--reread']);
    expect(again.stdout).toContain(`big.csv: ${ROWS_TEXT} rows read: 0 new, ${STAGED_TEXT} already staged, 0 identical, 0 skipped, ${REJECTED} rejected`);
    expect(again.stdout).not.toContain('resumed');
  });

  it("the hook's in-process stand-in for the kill leaves what the real kill left: the same files, rows and point, a lock of a process gone", async () => {
    const { dir, staging: real } = await copyOfKilledCsv('real.db');
    const standIn = join(dir, 'stand-in.db');
    expect(await stage(dir, 'stand-in.db', ['big.csv', '--from', 'csv', '--workers', '0'], { MIGRATE_TEST_KILL_AFTER_PIECES: '1' })).toMatchObject({ code: null, signal: 'SIGKILL' });
    // Before any reader opens them: the kill left its commits in the WAL, never checkpointed.
    const files = (path: string) => ['', '-wal', '-shm'].filter((suffix) => existsSync(path + suffix));
    expect(files(standIn)).toEqual(['', '-wal', '-shm']);
    expect(files(real)).toEqual(files(standIn));
    expect(everyRow(standIn)).toEqual(everyRow(real));
    expect(contents(standIn)).toEqual(contents(real));
    const lock = (path: string) => JSON.parse(readStaging(path, (db) => (db.prepare("SELECT value FROM meta WHERE key = 'writer_lock'").get() as { value: string }).value));
    const gone = (pid: number) => expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    expect(lock(standIn)).toMatchObject({ host: lock(real).host, command: lock(real).command });
    gone(lock(standIn).pid);
    gone(lock(real).pid);
  });

  it('a file changed before it was resumed is staged again from the start; rows of it gone are withdrawn', async () => {
    // The last test to use the shared killed run: it changes its big.csv.
    const { dir, staging } = await copyOfKilledCsv('changed.db');
    const partialEvents = contents(staging).events.length;
    expect(partialEvents).toBeGreaterThan(0);
    writeFileSync(join(dir, 'big.csv'), csvText(ROWS, 'after'));
    const again = await stage(dir, 'changed.db', ['big.csv', '--from', 'csv', '--workers', '0']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('big.csv changed since its interrupted read');
    expect(again.stdout).not.toContain('resumed at line');
    expect(again.stdout).toContain(`big.csv: ${ROWS_TEXT} rows read: ${STAGED_TEXT} new, 0 already staged, 0 identical, 0 skipped, ${REJECTED} rejected`);
    expect(again.stdout).toContain(`${partialEvents.toLocaleString('en-US')} withdrawn: no longer in the file`);
    const whole = await stage(dir, 'whole-changed.db', ['big.csv', '--from', 'csv', '--workers', '0']);
    expect(whole.code).toBe(0);
    expect(contents(staging).events).toEqual(contents(join(dir, 'whole-changed.db')).events);
    const report = JSON.parse((await runCli(['status', '--json', '--staging', staging], { cwd: dir })).stdout);
    expect(report.sources).toMatchObject([{ status: 'done', withdrawn: partialEvents }]);
    expect(readFileSync(join(dir, 'big.csv'), 'utf8')).toContain('after');
  });
});

describe('reads that cannot be resumed', () => {
  it('a line over 1 MiB skipped unread before the point of the kill: the resumed read goes on after it', async () => {
    const dir = tempDir();
    const lines = jsonlText(ROWS).split('\n');
    lines.splice(100, 0, JSON.stringify({ event: 'huge', distinct_id: 'u', timestamp: 0, properties: { blob: 'b'.repeat(1_100_000) } }));
    writeFileSync(join(dir, 'long.jsonl'), lines.join('\r\n'));
    const { resumed, whole } = await killedThenResumed(dir, 'long.jsonl', ['--from', 'jsonl', '--workers', '0'], 3);
    expect(resumed.files[0].resumedAtLine).toBeGreaterThan(101);
    expect(resumed.totals).toEqual({ ...whole.totals });
    expect(resumed.totals).toMatchObject({ rowsRead: ROWS + 1, rejectedByReason: { too_large: 1, implausible_timestamp: REJECTED } });
    expect(contents(join(dir, 'm.db'))).toEqual(contents(join(dir, 'whole-m.db')));
  });

  it('standard input killed part-way: partial until staged again, then what it staged is undone and it is staged from the start (a stream cannot be read again)', async () => {
    const dir = tempDir();
    const input = csvText(ROWS);
    const args = ['export-source', '--from', 'csv', '-', '--workers', '0', '--staging', join(dir, 'm.db')];
    const killed = await runCli(args, { cwd: dir, input, env: { ...PIECES, MIGRATE_TEST_KILL_AFTER_PIECES: '1' } });
    expect(killed.signal).toBe('SIGKILL');
    const partial = JSON.parse((await runCli(['status', '--json', '--staging', join(dir, 'm.db')], { cwd: dir })).stdout);
    expect(partial.sources).toMatchObject([{ path: '<stdin>', status: 'partial' }]);
    expect(partial.events.count).toBeGreaterThan(0);
    const again = await runCli(args, { cwd: dir, input, env: PIECES });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('note: <stdin>: its interrupted read (started ');
    expect(again.stderr).toContain('was undone: a stream is read once and cannot be read again; staging it from the start');
    expect(again.stdout).toMatch(/ {2}staged from the start: its interrupted read \(started .*\) was undone: a stream is read once/);
    expect(again.stdout).not.toContain('resumed at line');
    expect(again.stdout).toContain(`<stdin>: ${ROWS_TEXT} rows read: ${STAGED_TEXT} new, 0 already staged, 0 identical, 0 skipped, ${REJECTED} rejected`);
    const whole = await runCli(['export-source', '--from', 'csv', '-', '--workers', '0', '--staging', join(dir, 'whole.db')], { cwd: dir, input, env: PIECES });
    expect(whole.code).toBe(0);
    expect(contents(join(dir, 'm.db'))).toEqual(contents(join(dir, 'whole.db')));
    const text = await runCli([...args], { cwd: dir, input, env: PIECES });
    expect(text.stdout).toContain(`<stdin>: ${ROWS_TEXT} rows read: 0 new, ${STAGED_TEXT} already staged`);
  });

  it('Ctrl-C while standard input is staged: exit 130, and what it staged is undone, not left partial (a stream cannot be read again)', async () => {
    const dir = tempDir();
    const staging = join(dir, 'm.db');
    const run = startCli(['export-source', '--from', 'csv', '-', '--workers', '0', '--staging', staging, '--quiet'], { cwd: dir, input: csvText(70_000) });
    let changes = 0;
    const watcher = watch(dir, (_event, name) => {
      if (name === 'm.db-wal' && ++changes === 3) run.child.kill('SIGINT');
    });
    const result = await run.done;
    watcher.close();
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain('error: interrupted while staging <stdin>; nothing from it was staged (a stream cannot be read again)');
    expect(result.stderr).toContain('Run the same command again with the same data: it is staged from the start');
    const status = JSON.parse((await runCli(['status', '--json', '--staging', staging], { cwd: dir })).stdout);
    expect(status.sources).toMatchObject([{ path: '<stdin>', status: 'failed' }]);
    expect(status.events.count).toBe(0);
  });

  it('a stream staged again with other data is not a changed file: nothing of the earlier one is withdrawn', async () => {
    const dir = tempDir();
    const args = ['export-source', '--from', 'csv', '-', '--staging', join(dir, 'm.db'), '--json'];
    const first = await runCli(args, { cwd: dir, input: 'event,distinct_id,timestamp\na,u1,2024-01-01T00:00:00Z\n' });
    expect(first.code).toBe(0);
    const other = await runCli([...args, '--timezone', 'UTC'], { cwd: dir, input: 'event,distinct_id,timestamp\nb,u2,2024-01-01T00:00:00Z\n' });
    expect(other.code, other.stderr).toBe(0);
    expect(JSON.parse(other.stdout).totals).toMatchObject({ staged: 1, withdrawn: 0 });
    expect(JSON.parse((await runCli(['status', '--json', '--staging', join(dir, 'm.db')], { cwd: dir })).stdout).events.count).toBe(2);
  });

  it('a JSON array killed part-way is staged again from the start, the summary says why, and its rows end the same', async () => {
    const dir = tempDir();
    const records = jsonlText(ROWS).trim().split('\n');
    writeFileSync(join(dir, 'array.json'), `[\n  ${records.join(',\n  ')}\n]\n`);
    const killed = await stage(dir, 'm.db', ['array.json', '--from', 'jsonl', '--workers', '0'], { MIGRATE_TEST_KILL_AFTER_PIECES: '1' });
    expect(killed.signal).toBe('SIGKILL');
    const again = await stage(dir, 'm.db', ['array.json', '--from', 'jsonl', '--workers', '0']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/staged from the start: its interrupted read \(started .*\) was undone: a JSON array's read records no point in the text to resume at/);
    expect(again.stdout).toContain(`array.json: ${ROWS_TEXT} rows read: ${STAGED_TEXT} new, 0 already staged, 0 identical, 0 skipped, ${REJECTED} rejected`);
    const whole = await stage(dir, 'whole.db', ['array.json', '--from', 'jsonl', '--workers', '0']);
    expect(whole.code).toBe(0);
    expect(contents(join(dir, 'm.db'))).toEqual(contents(join(dir, 'whole.db')));
  });
});
