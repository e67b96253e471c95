/**
 * What a new user reads, through the built CLI: every command printed to run next works when
 * pasted into a shell (with the staging file and config that are not the defaults), counts
 * meet their nouns in the singular too, a mistyped option is called unknown, the zone typed is
 * the zone echoed, status fits a terminal, and the help of each identify command names its file.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/util/display-width.js';
import { CLI, runCli } from '../helpers/run-cli.js';
import { useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { FAST, SAMPLE_CSV, SAMPLE_EVENTS } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

/** Runs a printed `migrate ...` command through a shell, as a user pasting it would (asynchronously: the sandbox answers from this process). */
async function paste(command: string, cwd: string): Promise<string> {
  expect(command).toMatch(/^migrate /);
  const shellCommand = `'${process.execPath}' '${CLI}' ${command.slice('migrate '.length)}`;
  const { stdout } = await promisify(execFile)('sh', ['-c', shellCommand], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return stdout;
}

/** A directory whose name needs quoting in a shell. */
function awkwardDir(base: string): string {
  const dir = join(base, "it's a dir");
  mkdirSync(dir);
  return dir;
}

describe('commands printed to run next', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  it('`migrate rejects` names a staging file that is not the default, quoted, and works when pasted', async () => {
    const dir = tempDir();
    const staging = join(awkwardDir(dir), 'other.db');
    writeFileSync(join(dir, 'e.csv'), 'event,distinct_id,timestamp\na,u1,2024-01-01T00:00:00Z\nb,,2024-01-01T00:00:00Z\n');
    const staged = await runCli(['export-source', '--from', 'csv', 'e.csv', '--staging', staging], { cwd: dir });
    expect(staged.code, staged.stderr).toBe(0);
    const hint = /`(migrate rejects[^`]*)`/.exec(staged.stdout)?.[1];
    expect(hint).toBe(`migrate rejects --staging '${staging.replace("'", "'\\''")}'`);
    expect(await paste(hint!, dir)).toContain('e.csv:3');
  });

  it('a sample import says "at most 1 event", and its Next: command (with --staging and --config) works when pasted', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const place = awkwardDir(dir);
    const config = join(place, 'my config.json');
    renameSync(writeSandboxConfig(dir, sandbox), config);
    const staging = join(place, 'm.db');
    expect((await runCli(['export-source', '--from', 'csv', SAMPLE_CSV, '--staging', staging, '--quiet'], { cwd: dir })).code).toBe(0);
    const sample = await runCli(['import', '--project', 'test', '--sample', '1', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(sample.code, sample.stderr).toBe(0);
    expect(sample.stdout).toContain('This was a sample of at most 1 event; the rest stays pending.');
    const next = /^Next: (migrate .*) \(([\d,]+) events still pending\)$/m.exec(sample.stdout);
    const quote = (path: string) => `'${path.replace("'", "'\\''")}'`;
    expect(next?.[1]).toBe(`migrate import --project test --staging ${quote(staging)} --config ${quote(config)}`);
    expect(next?.[2]).toBe((SAMPLE_EVENTS - 1).toLocaleString('en-US'));
    const rest = await paste(next![1]!, dir);
    expect(rest).toContain(`${(SAMPLE_EVENTS - 1).toLocaleString('en-US')} events delivered`);
    expect(rest).toContain(`Next: migrate import --project prod --staging ${quote(staging)} --config ${quote(config)}`);
  });

  it('an event too large alone becomes a dead letter whose status line says "HTTP 413:" once', async () => {
    const sandbox = await sandboxAt({ capture: { maxBodyBytes: 4000 } });
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const rows = ['event,distinct_id,timestamp,note', ...Array.from({ length: 5 }, (_, i) => `small,u${i},2024-01-01T00:0${i}:00Z,x`), `big,u9,2024-01-01T00:09:00Z,${'y'.repeat(6000)}`];
    writeFileSync(join(dir, 'e.csv'), rows.join('\n') + '\n');
    expect((await runCli(['export-source', '--from', 'csv', 'e.csv', '--quiet'], { cwd: dir })).code).toBe(0);
    const imported = await runCli(['import', '--project', 'test', '--config', config, ...FAST], { cwd: dir });
    expect(imported.stdout).toContain('1 event refused by the server and kept as dead letters (see `migrate status`).');
    const status = await runCli(['status'], { cwd: dir });
    const line = status.stdout.split('\n').find((l) => l.includes('HTTP 413'));
    expect(line, status.stdout).toMatch(/ big 2024-01-01T00:09:00\.000Z: HTTP 413: \S/);
    expect(line).not.toMatch(/HTTP 413.*HTTP 413/);
  });
});

describe('options', () => {
  it.each([
    [['import', '--projet', 'test'], '--project'],
    [['group-types', 'list', '--projet', 'test'], '--project'],
  ])('%j: a mistyped option is unknown (with a suggestion), not a missing required one', async (args, meant) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: unknown option '--projet'\n(Did you mean ${meant}?)`);
    expect(result.stderr).not.toContain('required option');
  });

  it('a required option left out is still named', async () => {
    const result = await runCli(['import']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: required option '--project <name>' not specified");
  });

  it.each([
    ['identify-users', 'users files', 'groups'],
    ['identify-groups', 'groups files', 'users'],
  ])('%s --help names its own kind of file', async (command, says, not) => {
    const help = (await runCli([command, '--help'])).stdout;
    expect(help).toContain(says);
    expect(help).not.toMatch(new RegExp(`${not} (or \\w+ )?files`));
  });
});

describe('export-source and status text', () => {
  const tempDir = useTempDir();

  it('--timezone CET: messages say CET, the canonical name is said once, and the other name of the zone is the same zone', async () => {
    const canonical = new Intl.DateTimeFormat('en-US', { timeZone: 'CET' }).resolvedOptions().timeZone;
    const dir = tempDir();
    writeFileSync(join(dir, 'e.csv'), 'event,distinct_id,timestamp\na,u1,2024-03-31 02:30:00\nb,u2,2024-01-01 10:00:00\n');
    const first = await runCli(['export-source', '--from', 'csv', 'e.csv', '--timezone', 'CET'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('e.csv:2 timestamp: "2024-03-31 02:30:00" does not exist in CET (clocks jumped forward)');
    const notes = first.stderr.split('\n').filter((l) => l.startsWith('--timezone CET'));
    expect(notes).toEqual(canonical === 'CET' ? [] : [`--timezone CET: this machine's time zone database reads it as ${canonical}, whose rules apply`]);
    const again = await runCli(['export-source', '--from', 'csv', 'e.csv', '--timezone', canonical, '--reread'], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('e.csv: 2 rows read: 0 new, 1 already staged');
  });

  it('the time and rate of a run are honest: no rate from a time rounded to 0.0 s', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'e.csv'), 'event,distinct_id,timestamp\na,u1,2024-01-01T00:00:00Z\n');
    const result = await runCli(['export-source', '--from', 'csv', 'e.csv', '--staging', 'm.db'], { cwd: dir });
    const line = result.stdout.split('\n').find((l) => l.startsWith('Staged into'));
    expect(line).toMatch(/^Staged into m\.db in (under 0\.1 s|\d+\.\d s \([\d,]+ rows\/s\))\.$/);
    expect(line).not.toContain('0.0 s');
  });

  it('status stays within 120 columns: paths relative to the working directory, long ones cut in the middle; --json keeps them whole', async () => {
    const dir = tempDir();
    const deep = join(dir, ...Array.from({ length: 8 }, (_, i) => `exports-of-the-old-system-part-${i}`));
    mkdirSync(deep, { recursive: true });
    const file = join(deep, 'events.csv');
    writeFileSync(file, 'event,distinct_id,timestamp\na,u1,2024-01-01T00:00:00Z\n');
    expect((await runCli(['export-source', '--from', 'csv', file, '--staging', 'm.db', '--quiet'], { cwd: dir })).code).toBe(0);
    const text = await runCli(['status', '--staging', 'm.db'], { cwd: dir });
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toBe('Staging file: m.db');
    expect(Math.max(...lines.map(displayWidth))).toBeLessThanOrEqual(120);
    expect(text.stdout).toMatch(/^ {2}exports-o\S*…\S*part-7\/events\.csv /m);
    const json = await runCli(['status', '--staging', 'm.db', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout).sources[0].path).toBe(file);
  });
});
