/**
 * JSON as it comes from the wild, through the built CLI: integers beyond 2^53, nesting deep
 * enough to crash a recursive reader, lone surrogates, out-of-range numbers, `__proto__` keys,
 * files holding one JSON array, and --column paths. Each bad row is rejected with its line and
 * reason; the good rows of the same file are staged.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportSource, rejectsOf, stagingIn } from '../helpers/export-source.js';
import { runCli } from '../helpers/run-cli.js';
import { readStaging, SOURCE_PROPERTIES_SQL } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const T = '2025-01-01T00:00:00Z';

/** Staged rows with their properties as the exact JSON text that will be sent. */
function stagedRows(staging: string): Array<{ distinct_id: string; event: string; properties: string; line: number }> {
  return readStaging(staging, (db) => db.prepare(`SELECT distinct_id, event, ${SOURCE_PROPERTIES_SQL} AS properties, line FROM events ORDER BY line`).all() as never);
}

function line(fields: Record<string, unknown>): string {
  return JSON.stringify({ event: 'e', timestamp: T, ...fields });
}

describe('hostile JSON lines', () => {
  it('keeps big integers exact, refuses what PostHog would refuse, and stages the rest', async () => {
    const dir = tempDir();
    const target = stagingIn(dir);
    const deep = `{"event":"deep","distinct_id":"u","timestamp":"${T}","properties":{"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}}`;
    const lines = [
      `{"event":"e","distinct_id":9007199254740993,"timestamp":"${T}","properties":{"account":18446744073709551615}}`,
      `{"event":"e","distinct_id":9007199254740992,"timestamp":"${T}"}`,
      deep,
      `{"event":"e","distinct_id":"u","timestamp":"${T}","properties":{"name":"\\ud800x"}}`,
      `{"event":"e","distinct_id":"u","timestamp":"${T}","properties":{"n":1e400}}`,
      line({ distinct_id: 'after' }),
    ];
    writeFileSync(join(dir, 'e.jsonl'), lines.join('\n') + '\n');
    const result = await exportSource(target, ['--from', 'jsonl', 'e.jsonl']);
    expect(result.totals).toMatchObject({ rowsRead: 6, staged: 3, rejected: 3, rejectedByReason: { too_deep: 1, invalid_unicode: 1, number_out_of_range: 1 } });
    const rows = stagedRows(target.staging);
    expect(rows.map((r) => [r.line, r.distinct_id, r.properties])).toEqual([
      [1, '9007199254740993', '{"account":18446744073709551615}'],
      [2, '9007199254740992', '{}'],
      [6, 'after', '{}'],
    ]);
    const rejects = await rejectsOf(target);
    expect(rejects.map((r) => [r.line, r.reason, r.field])).toEqual([
      [3, 'too_deep', expect.stringMatching(/^properties\.x\[0\]\[0\]/)],
      [4, 'invalid_unicode', 'properties.name'],
      [5, 'number_out_of_range', 'properties.n'],
    ]);
    expect(rejects[0]!.message).toContain('nests 200002 levels deep');
  });

  it('a re-run stages nothing new: exact integers give the same uuids every time', async () => {
    const dir = tempDir();
    const target = stagingIn(dir);
    writeFileSync(join(dir, 'e.jsonl'), `${line({ distinct_id: 'u', properties: { id: 1 } }).replace('"id":1', '"id":12345678901234567891')}\n`);
    expect((await exportSource(target, ['--from', 'jsonl', 'e.jsonl'])).totals.staged).toBe(1);
    expect((await exportSource(target, ['--from', 'jsonl', '--reread', 'e.jsonl'])).totals).toMatchObject({ staged: 0, alreadyStaged: 1 });
  });

  it('__proto__ and constructor are properties like any other: JSON lines, Mixpanel, CSV header and CSV properties column', async () => {
    const dir = tempDir();
    const target = stagingIn(dir);
    writeFileSync(join(dir, 'e.jsonl'), `{"event":"e","distinct_id":"u","timestamp":"${T}","__proto__":{"polluted":1},"properties":{"constructor":"c"}}\n`);
    writeFileSync(join(dir, 'm.jsonl'), `{"event":"m","properties":{"time":1735689600,"distinct_id":"u","$insert_id":"i1","__proto__":"p","constructor":"c"}}\n`);
    writeFileSync(join(dir, 'c.csv'), `event,distinct_id,timestamp,__proto__,constructor\nc,u,${T},p,c\n`);
    writeFileSync(join(dir, 'p.csv'), `event,distinct_id,timestamp,properties\np,u,${T},"{""__proto__"":{""x"":1},""constructor"":2}"\n`);
    await exportSource(target, ['--from', 'jsonl', 'e.jsonl']);
    await exportSource(target, ['--from', 'mixpanel', 'm.jsonl']);
    await exportSource(target, ['--from', 'csv', 'c.csv']);
    await exportSource(target, ['--from', 'csv', 'p.csv']);
    const byEvent = Object.fromEntries(stagedRows(target.staging).map((r) => [r.event, JSON.parse(r.properties) as Record<string, unknown>]));
    expect(Object.keys(byEvent.e!).sort()).toEqual(['__proto__', 'constructor']);
    expect(byEvent.e!.__proto__).toEqual({ polluted: 1 });
    expect(Object.keys(byEvent.m!)).toEqual(expect.arrayContaining(['__proto__', 'constructor']));
    expect(byEvent.c).toEqual(JSON.parse('{"__proto__":"p","constructor":"c"}'));
    expect(byEvent.p).toEqual(JSON.parse('{"__proto__":{"x":1},"constructor":2}'));
    expect(Object.keys(byEvent.p!).sort()).toEqual(['__proto__', 'constructor']);
  });
});

describe('files holding one JSON array', () => {
  const pretty = (events: object[]): string => JSON.stringify(events, null, 2) + '\n';

  it("are read element by element for every JSON format, with rejects at the element's first line", async () => {
    const dir = tempDir();
    const target = stagingIn(dir);
    writeFileSync(
      join(dir, 'events.json'),
      pretty([
        { event: 'a', distinct_id: 'u1', timestamp: T },
        { event: 'b', timestamp: T },
        { event: 'c', distinct_id: 'u3', timestamp: T },
      ]),
    );
    writeFileSync(join(dir, 'mixpanel.json'), pretty([{ event: 'm', properties: { time: 1735689600, distinct_id: 'u', $insert_id: 'x' } }]));
    const events = await exportSource(target, ['--from', 'jsonl', 'events.json']);
    expect(events.totals).toMatchObject({ rowsRead: 3, staged: 2, rejectedByReason: { missing_distinct_id: 1 } });
    expect(events.files[0].notices).toEqual(['read as one JSON array of events']);
    expect((await rejectsOf(target))[0]).toMatchObject({ line: 7, reason: 'missing_distinct_id' });
    expect((await exportSource(target, ['--from', 'mixpanel', 'mixpanel.json'])).totals).toMatchObject({ staged: 1 });
    expect(stagedRows(target.staging).map((r) => [r.event, r.line])).toEqual(
      expect.arrayContaining([
        ['a', 2],
        ['c', 11],
        ['m', 2],
      ]),
    );
  });

  it('a broken array keeps the elements before the break and names the line', async () => {
    const dir = tempDir();
    const target = stagingIn(dir);
    writeFileSync(join(dir, 'events.json'), `[\n${line({ distinct_id: 'u1' })}\n${line({ distinct_id: 'u2' })}\n]`);
    const result = await exportSource(target, ['--from', 'posthog', 'events.json']);
    expect(result.totals).toMatchObject({ staged: 1, rejectedByReason: { bad_json: 1 } });
    expect((await rejectsOf(target))[0]).toMatchObject({ line: 3, reason: 'bad_json', message: expect.stringContaining("expected ',' or ']' after the element that starts at line 2") });
  });
});

describe('--column for JSON sources and person files', () => {
  it('reads the distinct_id and timestamp from dotted paths', async () => {
    const dir = tempDir();
    const target = stagingIn(dir);
    writeFileSync(join(dir, 'm.jsonl'), `{"event":"m","properties":{"time":1,"distinct_id":"device","user":{"id":"u-42"},"ts":"${T}","$insert_id":"a"}}\n`);
    await exportSource(target, ['--from', 'mixpanel', 'm.jsonl', '--column', 'distinct_id=properties.user.id', '--column', 'timestamp=properties.ts']);
    const [row] = readStaging(target.staging, (db) => db.prepare('SELECT distinct_id, timestamp_ms FROM events').all() as Array<{ distinct_id: string; timestamp_ms: number }>);
    expect(row).toEqual({ distinct_id: 'u-42', timestamp_ms: Date.parse(T) });
    const again = await runCli(['export-source', '--from', 'mixpanel', 'm.jsonl', '--staging', target.staging], { cwd: dir });
    expect(again.code).toBe(6);
    expect(again.stderr).toContain('--column: was distinct_id=properties.user.id timestamp=properties.ts, now none');
  });

  it('identify-users reads another id column; identify-groups names --key-column and the columns found', async () => {
    const dir = tempDir();
    const target = stagingIn(dir);
    writeFileSync(join(dir, 'u.csv'), 'User_ID,email\nu1,a@x\n');
    const users = await runCli(['identify-users', '--from', 'csv', 'u.csv', '--column', 'distinct_id=user_id', '--staging', target.staging, '--json'], { cwd: dir });
    expect(users.code).toBe(0);
    expect(JSON.parse(users.stdout).totals.staged).toBe(1);
    writeFileSync(join(dir, 'g.csv'), 'id,name\nacme,Acme\n');
    const groups = await runCli(['identify-groups', '--from', 'csv', 'g.csv', '--group-type', 'company', '--staging', target.staging], { cwd: dir });
    expect(groups.code).toBe(3);
    expect(groups.stderr).toBe('error: g.csv:1: the header has no "group_key" column (found: id, name); use --key-column <header> to name it\n');
  });
});

describe('a run where every row is rejected by a reader exits 3', () => {
  const json = (properties: string) => `{"event":"e","distinct_id":"u","timestamp":"${T}","properties":${properties}}`;
  it.each<[string, string, string[], string | Buffer, string]>([
    [
      'every row with bytes not valid UTF-8',
      'latin.csv',
      ['export-source', '--from', 'csv'],
      Buffer.from(`event,distinct_id,timestamp\nview,Andr\xe9,${T}\nview,Jos\xe9,${T}\n`, 'latin1'),
      '2 invalid_utf8',
    ],
    ['every row a lone surrogate', 'e.jsonl', ['export-source', '--from', 'jsonl'], `${json('{"a":"\\ud800"}')}\n${json('{"b":"\\udc00x"}')}\n`, '2 invalid_unicode'],
    ['every row a number beyond a float', 'e.jsonl', ['export-source', '--from', 'posthog'], `${json('{"n":1e400}')}\n`, '1 number_out_of_range'],
    ['every row nested too deep', 'e.jsonl', ['export-source', '--from', 'jsonl'], `${json(`{"x":${'['.repeat(130)}${']'.repeat(130)}}`)}\n`, '1 too_deep'],
    ['every line over 1 MiB', 'e.jsonl', ['export-source', '--from', 'mixpanel'], `${json(`{"blob":"${'b'.repeat(1_100_000)}"}`)}\n`, '1 too_large'],
    ['a JSON array broken after its first element, itself rejected', 'a.json', ['export-source', '--from', 'jsonl'], `[\n${json('{"n":1e400}')}\n{"x":1}]\n`, '1 number_out_of_range, 1 bad_json'],
    ['every user with bytes not valid UTF-8', 'users.csv', ['identify-users', '--from', 'csv'], Buffer.from('distinct_id,name\nu1,Andr\xe9\n', 'latin1'), '1 invalid_utf8'],
  ])('%s', async (_name, file, command, content, reasons) => {
    const dir = tempDir();
    writeFileSync(join(dir, file), content);
    const result = await runCli([...command, file, '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(`error: nothing was staged: every row read was rejected (${reasons})`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('the size bound is in bytes, whatever the characters', () => {
  it("a row over 1 MiB of UTF-8 in fewer than 1 Mi characters is too_large, as a longer one is; one under 1 MiB but over an event's 900 KiB is event_too_large", async () => {
    const dir = tempDir();
    const row = (distinctId: string, blob: string) => `{"event":"e","distinct_id":"${distinctId}","timestamp":"${T}","properties":{"blob":"${blob}"}}`;
    const lines = [row('accents', 'é'.repeat(600_000)), row('euros', '€'.repeat(400_000)), row('long', 'a'.repeat(1_100_000)), row('big', 'a'.repeat(950 * 1024)), row('fine', 'ok')];
    writeFileSync(join(dir, 'e.jsonl'), lines.join('\n') + '\n');
    const target = stagingIn(dir);
    const result = await exportSource(target, ['--from', 'jsonl', 'e.jsonl']);
    expect(result.totals).toMatchObject({ rowsRead: 5, staged: 1, rejected: 4, rejectedByReason: { too_large: 3, event_too_large: 1 } });
    const rejects = await rejectsOf(target);
    expect(rejects.map((r) => [r.line, r.reason])).toEqual([
      [1, 'too_large'],
      [2, 'too_large'],
      [3, 'too_large'],
      [4, 'event_too_large'],
    ]);
    expect(rejects[0]!.message).toBe(`the row is ${Buffer.byteLength(lines[0]!).toLocaleString('en-US')} bytes; an event can be at most 1 MiB (PostHog drops larger ones)`);
    expect(rejects[0]!.raw.length).toBeLessThanOrEqual(200);
    expect(rejects[2]!.message).toContain('so it was skipped unread');
  });
});
