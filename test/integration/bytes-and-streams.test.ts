/**
 * Bytes as they arrive, through the built CLI: bad UTF-8 anywhere in a file, other encodings,
 * byte-order marks, classic Mac line ends, a line far larger than any event, and sources that
 * are not plain files (standard input, a pipe from a process, a FIFO).
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { exportSource, rejectsOf, stagingIn, statusOf } from '../helpers/export-source.js';
import { CLI, runCli, startCli } from '../helpers/run-cli.js';
import { readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { STAGED_PROPERTIES } from '../helpers/staged-properties.js';

const tempDir = useTempDir();
const T = '2025-01-01T00:00:00Z';

function csvRows(count: number, from = 1): string {
  let out = '';
  for (let i = from; i < from + count; i++) out += `view,user_${i},${T},${i}\n`;
  return out;
}

function distinctIds(staging: string): string[] {
  return readStaging(staging, (db) => (db.prepare('SELECT distinct_id FROM events ORDER BY line').all() as Array<{ distinct_id: string }>).map((r) => r.distinct_id));
}

describe('bytes that are not valid UTF-8', () => {
  it('reject only their rows, with the line and the byte, wherever they are in the file', async () => {
    const dir = tempDir();
    const target = stagingIn(dir);
    const header = 'event,distinct_id,timestamp,n\n';
    // Line 12, and line 15,002 of a file of about 1 MB: past any sample of its first bytes.
    const bytes = Buffer.concat([
      Buffer.from(header + csvRows(10)),
      Buffer.from(`view,caf`),
      Buffer.from([0xe9]),
      Buffer.from(`,${T},11\n`),
      Buffer.from(csvRows(14_989, 12)),
      Buffer.from('view,na'),
      Buffer.from([0xef, 0xbb]),
      Buffer.from(`,${T},x\nview,ok \ufffd,${T},1\n`),
      Buffer.from(csvRows(40, 15_003)),
    ]);
    writeFileSync(join(dir, 'e.csv'), bytes);
    const result = await exportSource(target, ['--from', 'csv', 'e.csv']);
    expect(result.totals).toMatchObject({ rowsRead: 15_042, staged: 15_040, rejected: 2, rejectedByReason: { invalid_utf8: 2 } });
    expect(result.files[0].notices).toEqual([]);
    const rejects = await rejectsOf(target);
    expect(rejects.map((r) => [r.line, r.reason, r.message])).toEqual([
      [12, 'invalid_utf8', 'byte 0xE9 at offset 8 of the row is not valid UTF-8 (is the file in another encoding? see --encoding)'],
      [15_002, 'invalid_utf8', 'byte 0xEF at offset 7 of the row is not valid UTF-8 (is the file in another encoding? see --encoding)'],
    ]);
    expect(rejects[0]!.raw).toBe(`view,caf\ufffd,${T},11`);
    // A genuine U+FFFD is text like any other.
    expect(distinctIds(target.staging)).toContain('ok \ufffd');
  });

  it('many bad rows: the summary points to --encoding; read as windows-1252 every row is staged with its text', async () => {
    const dir = tempDir();
    const rows = Array.from({ length: 20 }, (_, i) => `view,Andr\xe9_${i},${T}\n`).join('');
    writeFileSync(join(dir, 'latin.csv'), Buffer.from(`event,distinct_id,timestamp\nview,plain,${T}\n${rows}`, 'latin1'));
    const wrong = await runCli(['export-source', '--from', 'csv', 'latin.csv', '--staging', join(dir, 'a.db')], { cwd: dir });
    expect(wrong.code).toBe(0);
    expect(wrong.stdout).toContain('20 rejected: 20 invalid_utf8');
    expect(wrong.stdout).toContain('note: 20 of 21 rows are not valid UTF-8: the file is probably in another encoding. Read it with --encoding <label>');
    const again = await runCli(['export-source', '--from', 'csv', 'latin.csv', '--encoding', 'latin1', '--staging', join(dir, 'a.db')], { cwd: dir });
    expect(again.code).toBe(6);
    expect(again.stderr).toContain('--encoding: was utf-8, now windows-1252');
    const right = await exportSource(stagingIn(dir), ['--from', 'csv', 'latin.csv', '--encoding', 'latin1']);
    expect(right.totals).toMatchObject({ staged: 21, rejected: 0 });
    expect(distinctIds(join(dir, 'migration.db'))).toContain('André_0');
    // Staged again without --encoding: not read (unchanged since); read again, as it was first staged, nothing new.
    expect((await exportSource(stagingIn(dir), ['--from', 'csv', 'latin.csv'])).unchanged).toEqual([join(dir, 'latin.csv')]);
    const kept = await exportSource(stagingIn(dir), ['--from', 'csv', 'latin.csv', '--reread']);
    expect(kept.totals).toMatchObject({ staged: 0, alreadyStaged: 21, rejected: 0 });
    expect(kept.files[0]!.notices).toContain('kept as first staged: windows-1252 (--encoding); pass --encoding utf-8 to change it, a change refused unless --replace-changed');
  });

  it('a header that is not valid UTF-8 refuses the file, naming the line and --encoding', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'h.csv'), Buffer.concat([Buffer.from('event,distinct_id,timestamp,pr'), Buffer.from([0xe9]), Buffer.from(`nom\nview,u,${T},x\n`)]));
    const result = await runCli(['export-source', '--from', 'csv', 'h.csv', '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: h\.csv:1: the header row is not valid text: byte 0xE9 at offset 30 of the row is not valid UTF-8/);
    expect(result.stderr).toContain('Pass --encoding');
    expect(result.stderr).not.toContain('    at ');
  });
});

describe('encodings and line ends', () => {
  it('UTF-16 with a byte-order mark is text, not "a binary file"; both byte orders give the same events', async () => {
    const dir = tempDir();
    const target = stagingIn(dir);
    const text = `event,distinct_id,timestamp\nview,Zoë,${T}\nbuy,東京,${T}\n`;
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    writeFileSync(join(dir, 'le.csv'), le);
    writeFileSync(join(dir, 'be.csv'), Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]));
    const first = await exportSource(target, ['--from', 'csv', 'le.csv']);
    expect(first.totals).toMatchObject({ staged: 2, rejected: 0 });
    expect(first.files[0].notices).toEqual(['read as utf-16le, as its byte-order mark says']);
    expect((await exportSource(target, ['--from', 'csv', 'be.csv'])).totals).toMatchObject({ staged: 0, alreadyStaged: 2 });
    expect(distinctIds(target.staging)).toEqual(['Zoë', '東京']);
    const status = await statusOf(target);
    expect(status.sources.map((s: { sizeBytes: number }) => s.sizeBytes)).toEqual([le.length, le.length]);
  });

  it('UTF-16 without a mark is called binary, with the flag that reads it', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'u.csv'), Buffer.from(`event,distinct_id,timestamp\nview,u,${T}\n`, 'utf16le'));
    const refused = await runCli(['export-source', '--from', 'csv', 'u.csv', '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toBe('error: u.csv: looks like a binary file (it contains NUL bytes), not text\nIf it is UTF-16 text without a byte-order mark, pass --encoding utf-16le (or utf-16be).\n');
    expect((await exportSource(stagingIn(dir), ['--from', 'csv', 'u.csv', '--encoding', 'utf-16le'])).totals.staged).toBe(1);
  });

  it('a multi-byte encoding is decoded across chunks (Shift JIS, 200 KB)', async () => {
    const dir = tempDir();
    // 東京 in Shift JIS, on rows long enough that characters fall across 64 KiB reads.
    const name = Buffer.from([0x93, 0x8c, 0x8b, 0x9e]);
    const parts = [Buffer.from('event,distinct_id,timestamp,city\n')];
    for (let i = 0; i < 4000; i++) parts.push(Buffer.from(`view,u${i},${T},`), name, name, name, Buffer.from('\n'));
    writeFileSync(join(dir, 'sjis.csv'), Buffer.concat(parts));
    const result = await exportSource(stagingIn(dir), ['--from', 'csv', 'sjis.csv', '--encoding', 'shift_jis']);
    expect(result.totals).toMatchObject({ staged: 4000, rejected: 0 });
    const cities = readStaging(join(dir, 'migration.db'), (db) => db.prepare(`SELECT DISTINCT json_extract(${STAGED_PROPERTIES}, '$.city') AS city FROM events`).all());
    expect(cities).toEqual([{ city: '東京東京東京' }]);
  });

  it('classic Mac line ends (a lone CR) end rows in CSV and JSON lines, and rejects keep their lines', async () => {
    const dir = tempDir();
    const target = stagingIn(dir);
    writeFileSync(join(dir, 'mac.csv'), `event,distinct_id,timestamp,note\rview,u1,${T},"two\rlines"\rview,,${T},x\rbuy,u3,${T},y\r`);
    writeFileSync(join(dir, 'mac.jsonl'), `{"event":"a","distinct_id":"u","timestamp":"${T}"}\r{"event":"b","timestamp":"${T}"}\r\n{"event":"c","distinct_id":"u","timestamp":"${T}"}`);
    const csv = await exportSource(target, ['--from', 'csv', 'mac.csv']);
    expect(csv.totals).toMatchObject({ rowsRead: 3, staged: 2, rejectedByReason: { missing_distinct_id: 1 } });
    const jsonl = await exportSource(target, ['--from', 'jsonl', 'mac.jsonl']);
    expect(jsonl.totals).toMatchObject({ rowsRead: 3, staged: 2, rejectedByReason: { missing_distinct_id: 1 } });
    expect((await rejectsOf(target)).map((r) => [r.path.split('/').pop(), r.line])).toEqual([
      ['mac.csv', 4],
      ['mac.jsonl', 2],
    ]);
  });
});

describe('a line larger than any event', () => {
  it('a 100 MB line is skipped unread as too_large with its size; the lines after it are staged', async () => {
    const dir = tempDir();
    const file = join(dir, 'big.jsonl');
    const fd = openSync(file, 'w');
    writeSync(fd, `{"event":"a","distinct_id":"u1","timestamp":"${T}"}\n{"event":"big","distinct_id":"u2","timestamp":"${T}","properties":{"blob":"`);
    const mb = Buffer.alloc(1024 * 1024, 'x');
    for (let i = 0; i < 100; i++) writeSync(fd, mb);
    writeSync(fd, `"}}\n{"event":"c","distinct_id":"u3","timestamp":"${T}"}\n`);
    closeSync(fd);
    const target = stagingIn(dir);
    const result = await exportSource(target, ['--from', 'jsonl', 'big.jsonl']);
    expect(result.totals).toMatchObject({ rowsRead: 3, staged: 2, rejected: 1, rejectedByReason: { too_large: 1 } });
    const [reject] = await rejectsOf(target);
    expect(reject).toMatchObject({ line: 2, reason: 'too_large', message: 'the line is 104,857,694 bytes; an event can be at most 1 MiB (PostHog drops larger ones), so it was skipped unread' });
    expect(reject!.raw).toHaveLength(200);
    expect(distinctIds(target.staging)).toEqual(['u1', 'u3']);
  }, 60_000);

  it('a 3 MB CSV record in a .gz file, the same', async () => {
    const dir = tempDir();
    const text = `event,distinct_id,timestamp,blob\nview,u1,${T},a\nview,u2,${T},"${'y'.repeat(3 * 1024 * 1024)}"\nview,u3,${T},c\n`;
    writeFileSync(join(dir, 'big.csv.gz'), gzipSync(text));
    const target = stagingIn(dir);
    const result = await exportSource(target, ['--from', 'csv', 'big.csv.gz']);
    expect(result.totals).toMatchObject({ staged: 2, rejectedByReason: { too_large: 1 } });
    expect((await rejectsOf(target))[0]).toMatchObject({ line: 3, message: expect.stringContaining('the record is 3,145,759 bytes') });
  });
});

describe('sources that are not plain files', () => {
  const csv = `event,distinct_id,timestamp\nview,u1,${T}\nview,u2,${T}\n`;

  it('standard input (-) is read as a stream; the same content again stages nothing new', async () => {
    const dir = tempDir();
    const target = stagingIn(dir);
    const first = await runCli(['export-source', '--from', 'csv', '-', '--staging', target.staging, '--json'], { cwd: dir, input: csv });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).files[0]).toMatchObject({ path: '<stdin>', displayName: '<stdin>', staged: 2 });
    const second = await runCli(['export-source', '--from', 'csv', '-', '--staging', target.staging, '--json'], { cwd: dir, input: csv });
    expect(JSON.parse(second.stdout).totals).toMatchObject({ staged: 0, alreadyStaged: 2 });
    const status = await statusOf(target);
    expect(status.sources[0]).toMatchObject({ path: '<stdin>', sizeBytes: -1, fingerprint: expect.stringMatching(/^sha256:/) });
    const text = await runCli(['status', '--staging', target.staging], { cwd: dir });
    expect(text.stdout).toMatch(/<stdin>\s+csv\s+done\s+stream/);
  });

  it('a pipe from a process (<(gzip -dc file.gz)) is read, not refused as "not a regular file"', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'e.csv.gz'), gzipSync(csv));
    const out = execFileSync('bash', ['-c', `"${process.execPath}" "${CLI}" export-source --from csv <(gzip -dc e.csv.gz) --staging m.db --json --quiet`], { cwd: dir, encoding: 'utf8' });
    expect(JSON.parse(out).totals).toMatchObject({ staged: 2 });
  });

  it('a FIFO is read once its writer comes; SIGTERM while waiting for one ends the command at once (exit 130)', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'events.fifo');
    execFileSync('mkfifo', [fifo]);
    const reading = startCli(['export-source', '--from', 'csv', fifo, '--staging', join(dir, 'm.db')], { cwd: dir });
    await waitFor(reading.child.stderr!, 'waiting for its data');
    const writer = spawn('bash', ['-c', `printf '${csv.replaceAll('\n', '\\n')}' > "${fifo}"`]);
    const written = new Promise((resolve) => writer.once('close', resolve));
    const done = await reading.done;
    expect(await written).toBe(0);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('2 new, 0 already staged');

    const waiting = startCli(['export-source', '--from', 'csv', fifo, '--staging', join(dir, 'm.db')], { cwd: dir });
    await waitFor(waiting.child.stderr!, 'waiting for its data');
    waiting.child.kill('SIGTERM');
    const stopped = await waiting.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain(`error: interrupted while waiting for ${fifo} to be written to; nothing was staged`);
    expect(stopped.stderr).not.toContain('    at ');
  });

  it('Ctrl-C while a writer holds the FIFO open and sends nothing more ends the command at once (exit 130)', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'events.fifo');
    execFileSync('mkfifo', [fifo]);
    const reading = startCli(['export-source', '--from', 'csv', fifo, '--staging', join(dir, 'm.db')], { cwd: dir });
    await waitFor(reading.child.stderr!, 'waiting for its data');
    // The writer sends a header and a row, then holds the FIFO open without a word more.
    const writer = spawn('bash', ['-c', `exec 3>"${fifo}"; printf 'event,distinct_id,timestamp\\nview,u1,${T}\\n' >&3; echo sent; exec sleep 60`]);
    await waitFor(writer.stdout, 'sent');
    reading.child.kill('SIGINT');
    const stopped = await reading.done;
    writer.kill('SIGKILL');
    expect(stopped.code).toBe(130);
    // On a loaded machine the signal may come before the sent bytes were read: still waiting, then.
    expect(stopped.stderr).toMatch(/error: interrupted while (reading|staging|waiting for) .*events\.fifo( to be written to)?; nothing (from it )?was staged/);
  });
});

/** Resolves once `text` has appeared on the stream. */
function waitFor(stream: NodeJS.ReadableStream, text: string): Promise<void> {
  return new Promise((resolve) => {
    let seen = '';
    const onData = (chunk: Buffer | string): void => {
      seen += chunk.toString();
      if (seen.includes(text)) {
        stream.off('data', onData);
        resolve();
      }
    };
    stream.on('data', onData);
  });
}
