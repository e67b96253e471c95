/**
 * `export-source --from avro` on container files written by the test's own writer (from the Avro
 * specification, not avsc): every codec, the types that lose precision when read carelessly,
 * rejects naming their block, a read resumed at the row its last piece ended on, and staging then
 * importing into the sandbox with every value compared with what was written.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeZip } from '../../scripts/zip-writer.mjs';
import { type AvroSchema, writeAvro } from '../helpers/avro-writer.js';
import { exportSource, rejectsOf, stagingIn } from '../helpers/export-source.js';
import { runCli } from '../helpers/run-cli.js';
import { asIngested, storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { FAST, readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { STAGED_PROPERTIES_TEXT, STAGED_PROPERTIES } from '../helpers/staged-properties.js';
import { formatTimestamp } from '../../src/events/timestamp.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();

const SIMPLE: AvroSchema = {
  type: 'record',
  name: 'event',
  fields: [
    { name: 'event', type: ['null', 'string'] },
    { name: 'distinct_id', type: 'string' },
    { name: 'timestamp', type: { type: 'long', logicalType: 'timestamp-millis' } },
    { name: 'note', type: 'string' },
  ],
};

const BASE_MS = 1704067200000n; // 2024-01-01T00:00:00Z

function simpleRows(count: number, noteOf: (i: number) => string | Buffer = (i) => `note ${i}`, eventOf: (i: number) => boolean = () => true) {
  return Array.from({ length: count }, (_, i) => ({
    event: eventOf(i) ? { branch: 1, value: `ev${i % 3}` } : null,
    distinct_id: `u${i % 5}`,
    timestamp: BASE_MS + BigInt(i) * 1000n,
    note: noteOf(i),
  }));
}

const TYPED: AvroSchema = {
  type: 'record',
  name: 'typed',
  namespace: 'test.avro',
  fields: [
    { name: 'Event', type: 'string' },
    { name: 'user', type: 'string' },
    { name: 'timestamp', type: { type: 'long', logicalType: 'timestamp-micros' } },
    { name: 'big', type: 'long' },
    { name: 'maybe', type: ['null', 'long'] },
    { name: 'nothing', type: ['null', 'string'] },
    { name: 'raw', type: 'bytes' },
    { name: 'id', type: { type: 'fixed', name: 'id16', size: 16 } },
    { name: 'ratio', type: 'double' },
    { name: 'flag', type: 'boolean' },
    { name: 'kind', type: { type: 'enum', name: 'kind', symbols: ['free', 'paid'] } },
    { name: 'tags', type: { type: 'array', items: 'string' } },
    { name: 'counts', type: { type: 'map', values: 'long' } },
    {
      name: 'place',
      type: {
        type: 'record',
        name: 'place',
        fields: [
          { name: 'city', type: 'string' },
          { name: 'zip', type: ['null', 'int'] },
        ],
      },
    },
    { name: 'day', type: { type: 'int', logicalType: 'date' } },
    { name: 'props', type: ['null', 'string'] },
  ],
};

function typedRow(i: number) {
  return {
    Event: `ev${i % 3}`,
    user: `user_${i % 7}`,
    timestamp: 1709287200123456n + BigInt(i) * 60_000_000n,
    big: 9007199254740993n + BigInt(i),
    maybe: i % 2 === 0 ? null : { branch: 1, value: BigInt(i) },
    nothing: null,
    raw: Buffer.from([i, 0xff, 0x00]),
    id: Buffer.alloc(16, i),
    ratio: i / 4,
    flag: i % 2 === 0,
    kind: i % 2 === 0 ? 'free' : 'paid',
    tags: ['a', `t${i}`],
    counts: { k1: BigInt(i), k2: 2n },
    place: { city: `city ${i}`, zip: i % 3 === 0 ? null : { branch: 1, value: 10000 + i } },
    day: 19849 + i,
    props: { branch: 1, value: `{"plan": "pro", "seats": ${i}}` },
  };
}

/** What each typed row's properties must be staged as (the columns named by --column are not properties). */
function expectedProperties(i: number) {
  return {
    big: Number(9007199254740993n + BigInt(i)),
    ...(i % 2 === 0 ? {} : { maybe: i }),
    raw: Buffer.from([i, 0xff, 0x00]).toString('base64'),
    id: Buffer.alloc(16, i).toString('base64'),
    ratio: i / 4,
    flag: i % 2 === 0,
    kind: i % 2 === 0 ? 'free' : 'paid',
    tags: ['a', `t${i}`],
    counts: { k1: i, k2: 2 },
    place: { city: `city ${i}`, zip: i % 3 === 0 ? null : 10000 + i },
    day: new Date((19849 + i) * 86_400_000).toISOString().slice(0, 10),
    plan: 'pro',
    seats: i,
  };
}

describe('export-source --from avro', () => {
  it('reads a file written with each codec as the same events', async () => {
    const dir = tempDir();
    const stagings = [];
    for (const codec of ['null', 'deflate', 'snappy'] as const) {
      const file = join(dir, `${codec}.avro`);
      writeAvro(file, SIMPLE, simpleRows(300), { codec, blockRecords: 64 });
      const target = { dir, staging: join(dir, `${codec}.db`) };
      const result = await exportSource(target, ['--from', 'avro', file]);
      expect(result.totals).toMatchObject({ rowsRead: 300, staged: 300, rejected: 0 });
      stagings.push(readStagedEvents(target.staging).map(({ source: _s, properties: { $import_run: _r, ...properties }, ...event }) => ({ ...event, properties })));
    }
    expect(stagings[0]![0]).toMatchObject({ event: 'ev0', distinct_id: 'u0', properties: { note: 'note 0' } });
    for (const staged of stagings.slice(1)) expect(staged).toEqual(stagings[0]);
  });

  it('stages every type exactly, and the sandbox stores every value as written', async () => {
    const sandbox = await sandboxAt();
    const target = stagingIn(tempDir());
    const file = join(target.dir, 'typed.avro');
    writeAvro(
      file,
      TYPED,
      Array.from({ length: 40 }, (_, i) => typedRow(i)),
      { codec: 'deflate', blockRecords: 16 },
    );
    const result = await exportSource(target, ['--from', 'avro', '--column', 'distinct_id=user', '--column', 'properties=props', file]);
    expect(result.totals).toMatchObject({ rowsRead: 40, staged: 40, rejected: 0 });
    const config = writeSandboxConfig(target.dir, sandbox);
    const imported = await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir });
    expect(imported.code, imported.stderr).toBe(0);

    const stored = storedEvents(sandbox, 1);
    const staged = readStagedEvents(target.staging);
    const stagedText = readStaging(target.staging, (db) =>
      db
        .prepare(`SELECT ${STAGED_PROPERTIES_TEXT} AS p FROM events ORDER BY line`)
        .all()
        .map((r) => (r as { p: string }).p),
    );
    expect(stored).toHaveLength(40);
    for (let i = 0; i < 40; i++) {
      const event = staged.find((e) => e.line === i + 1)!;
      const copy = stored.find((e) => e.uuid === event.uuid)!;
      const micros = 1709287200123456n + BigInt(i) * 60_000_000n;
      expect({ event: copy.event, distinct_id: copy.distinct_id, timestamp: copy.timestamp }).toEqual({
        event: `ev${i % 3}`,
        distinct_id: `user_${i % 7}`,
        // Every microsecond of the timestamp-micros column.
        timestamp: formatTimestamp(Number(micros / 1000n), Number(micros % 1000n)),
      });
      expect(event.properties).toMatchObject(expectedProperties(i));
      expect(event.properties).not.toHaveProperty('nothing');
      expect(event.properties).not.toHaveProperty('props');
      expect(JSON.parse(copy.properties)).toEqual(asIngested(event.properties));
      // The staged text as sent: a long beyond 2^53 with every digit.
      expect(stagedText[i]).toContain(`"big":${9007199254740993n + BigInt(i)}`);
    }
  });

  it('rejects rows whose text is not UTF-8 or that lack an event, naming the block and the row', async () => {
    const target = stagingIn(tempDir());
    const file = join(target.dir, 'bad.avro');
    const rows = simpleRows(
      250,
      (i) => (i === 9 || i === 209 ? Buffer.from([0xff, 0x41]) : 'ok'),
      (i) => i !== 149,
    );
    writeAvro(file, SIMPLE, rows, { codec: 'snappy', blockRecords: 100 });
    const result = await exportSource(target, ['--from', 'avro', file]);
    expect(result.totals).toMatchObject({ rowsRead: 250, staged: 247, rejected: 3 });
    const rejects = await rejectsOf(target);
    expect(rejects.map((r) => [r.line, r.reason, r.field])).toEqual([
      [10, 'invalid_utf8', 'note'],
      [150, 'missing_event', 'event'],
      [210, 'invalid_utf8', 'note'],
    ]);
    expect(rejects[0]!.message).toContain('(block 1 of 3, row 10 of it)');
    expect(rejects[1]!.message).toContain('(block 2 of 3, row 50 of it)');
    expect(rejects[2]!.message).toContain('(block 3 of 3, row 10 of it)');
  });

  it('reads a file of a MiB or more on its own thread, as UTF-8 bytes, with the same rejects and values', async () => {
    const target = stagingIn(tempDir());
    const file = join(target.dir, 'big.avro');
    const long = (i: number) => `é🚀 ${i} ${'x'.repeat(1000)}`;
    const rows = simpleRows(1500, (i) => (i === 9 || i === 1209 ? Buffer.from([0xff, 0x41]) : long(i)));
    writeAvro(file, SIMPLE, rows, { codec: 'null', blockRecords: 500 });
    expect(readFileSync(file).length).toBeGreaterThan(1024 * 1024);
    const result = await exportSource(target, ['--from', 'avro', file]);
    expect(result.totals).toMatchObject({ rowsRead: 1500, staged: 1498, rejected: 2 });
    const rejects = await rejectsOf(target);
    expect(rejects.map((r) => [r.line, r.reason, r.field])).toEqual([
      [10, 'invalid_utf8', 'note'],
      [1210, 'invalid_utf8', 'note'],
    ]);
    expect(rejects[1]!.message).toContain('(block 3 of 3, row 210 of it)');
    const staged = readStagedEvents(target.staging);
    expect(staged).toHaveLength(1498);
    for (const event of staged) expect(event.properties.note).toBe(long(event.line - 1));
  });

  it('refuses an Avro file under a text format or in a zip, a text file under --from avro, and a damaged file', async () => {
    const target = stagingIn(tempDir());
    const file = join(target.dir, 'events.avro');
    writeAvro(file, SIMPLE, simpleRows(3));
    writeFileSync(join(target.dir, 'events.csv'), 'event,distinct_id,timestamp\nev,u,2024-01-01T00:00:00Z\n');
    const run = (args: string[]) => runCli(['export-source', ...args, '--staging', target.staging], { cwd: target.dir });
    const asCsv = await run(['--from', 'csv', file]);
    expect(asCsv.code).toBe(3);
    expect(asCsv.stderr).toContain('is an Avro file, which this format does not read');
    const asAvro = await run(['--from', 'avro', join(target.dir, 'events.csv')]);
    expect(asAvro.code).toBe(3);
    expect(asAvro.stderr).toContain('is not an Avro object container file');
    writeFileSync(join(target.dir, 'events.zip'), makeZip([{ name: 'events.avro', data: readFileSync(file), method: 'deflate' }]));
    const zipped = await run(['--from', 'avro', join(target.dir, 'events.zip')]);
    expect(zipped.code).toBe(3);
    expect(zipped.stderr).toContain('is an Avro file, which is read only as a file on disk');
    const cut = join(target.dir, 'cut.avro');
    writeFileSync(cut, readFileSync(file).subarray(0, -5));
    const damaged = await run(['--from', 'avro', cut]);
    expect(damaged.code).toBe(3);
    expect(damaged.stderr).toContain('cut.avro: block 1 (at byte');
    expect(damaged.stderr).not.toContain('    at ');
  });
});

/** Every staged event with its line, and every reject, in staging order, without the run's own id. */
function contents(staging: string) {
  return readStaging(staging, (db) => ({
    events: db.prepare(`SELECT hex(uuid) AS uuid, line, event, timestamp_ms AS ts, json_remove(${STAGED_PROPERTIES_TEXT}, '$."$import_run"') AS p FROM events ORDER BY seq`).all(),
    rejects: db.prepare('SELECT line, field, reason, message FROM rejects ORDER BY line').all(),
  }));
}

/** Pieces of 256 Ki characters instead of 1 Mi (a test hook, see stage-run.ts), in the runs of files killed part-way. */
const PIECES = { MIGRATE_TEST_PIECE_CHARS: String(256 * 1024) };

describe('an Avro file staged part-way, killed, then staged again', () => {
  // In-process: pieces of 64 Ki characters (about 345 rows), so 1,500 rows make several and the first ends past the first block.
  const SMALL_PIECES = { MIGRATE_TEST_PIECE_CHARS: String(64 * 1024) };
  it.each([
    ['in-process', '0', 1500, SMALL_PIECES],
    // Pieces read ahead on a thread share a commit until it holds 4,096 rows (piece-pool.ts): the file goes on past it.
    ['on a worker thread', '1', 8000, PIECES],
  ])('resumes %s at the row its last piece ended on, every row once', async (_name, workers, rows, pieces) => {
    const dir = tempDir();
    const file = join(dir, 'big.avro');
    // About 190 characters a row: several pieces; every 2,001st row has no event (rejected).
    writeAvro(
      file,
      SIMPLE,
      simpleRows(
        rows,
        (i) => `${'n'.repeat(120)} ${i}`,
        (i) => i % 2001 !== 5,
      ),
      { codec: 'deflate', blockRecords: 250 },
    );
    const stage = (staging: string, env: Record<string, string> = {}) =>
      runCli(['export-source', '--from', 'avro', file, '--workers', workers, '--json', '--staging', join(dir, staging)], { cwd: dir, env: { ...pieces, ...env } });
    const killed = await stage('m.db', { MIGRATE_TEST_KILL_AFTER_PIECES: '1' });
    expect(killed.signal).toBe('SIGKILL');
    const partial = JSON.parse((await runCli(['status', '--json', '--staging', join(dir, 'm.db')], { cwd: dir })).stdout);
    expect(partial.sources).toMatchObject([{ status: 'partial' }]);
    const line = partial.sources[0].progressLine as number;
    expect(line).toBeGreaterThan(250); // past the first block
    const resumed = await stage('m.db');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).files[0].resumedAtLine).toBe(line);
    const whole = await stage('whole.db');
    const rejected = Math.ceil((rows - 5) / 2001);
    expect(JSON.parse(whole.stdout).totals).toMatchObject({ rowsRead: rows, staged: rows - rejected, rejected });
    expect(JSON.parse(resumed.stdout).totals).toEqual(JSON.parse(whole.stdout).totals);
    expect(contents(join(dir, 'm.db'))).toEqual(contents(join(dir, 'whole.db')));
  });
});

describe('an Avro file changed after its read was interrupted', () => {
  const ROWS_CHANGED = 1200;
  it('is known by the digest of its bytes, and staged again from the start', async () => {
    const dir = tempDir();
    const file = join(dir, 'big.avro');
    const write = (label: string) =>
      writeAvro(
        file,
        SIMPLE,
        simpleRows(ROWS_CHANGED, (i) => `${label.repeat(120)} ${i}`),
        { codec: 'snappy', blockRecords: 250 },
      );
    write('a');
    // Pieces of 64 Ki characters: 1,200 rows of about 190 characters make several.
    const stage = (env: Record<string, string> = {}) =>
      runCli(['export-source', '--from', 'avro', file, '--workers', '0', '--staging', join(dir, 'm.db')], { cwd: dir, env: { MIGRATE_TEST_PIECE_CHARS: String(64 * 1024), ...env } });
    expect((await stage({ MIGRATE_TEST_KILL_AFTER_PIECES: '1' })).signal).toBe('SIGKILL');
    write('b');
    const again = await stage();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout + again.stderr).toContain('changed since its interrupted read');
    const notes = readStaging(join(dir, 'm.db'), (db) => db.prepare(`SELECT count(*) AS n FROM events WHERE json_extract(${STAGED_PROPERTIES}, '$.note') LIKE 'bbb%'`).get()) as { n: number };
    expect(notes.n).toBe(ROWS_CHANGED);
  });
});
