/**
 * Parquet and Avro objects and a Heap Connect prefix read from moto's S3 server on loopback,
 * staged exactly as the same files on disk: a Parquet file DuckDB wrote (read by ranged GETs,
 * each guarded by its ETag), an Avro file with many blocks (streamed, a dropped connection read
 * on from the byte reached), a Heap folder uploaded whole (its manifests read, a missing listed
 * object named), a Parquet object killed part-way then resumed at its row group, and one
 * changed between runs read again from its start.
 */
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUCKET_RETRY_POLICY } from '../../src/buckets/bucket-calls.js';
import { listObjects } from '../../src/buckets/bucket-listing.js';
import { ObjectWindow } from '../../src/buckets/object-window.js';
import { createS3Calls } from '../../src/buckets/s3-client.js';
import { type AvroSchema, writeAvro } from '../helpers/avro-writer.js';
import { writeParquet } from '../helpers/duckdb.js';
import { throughProxy } from '../helpers/flaky-s3-proxy.js';
import { writeHeapFolder } from '../helpers/heap-layout.js';
import { MOTO_KEYS, useMoto } from '../helpers/moto-server.js';
import { runCli } from '../helpers/run-cli.js';
import { readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { testClock } from '../helpers/test-clock.js';
import { STAGED_PROPERTIES_TEXT } from '../helpers/staged-properties.js';

const tempDir = useTempDir();
const motoServer = useMoto();

/** Pieces of 256 Ki characters instead of 1 Mi (a test hook, see stage-run.ts), in the runs of the Parquet object killed part-way. */
const PIECES = { MIGRATE_TEST_PIECE_CHARS: String(256 * 1024) };

async function stage(dir: string, staging: string, args: string[], env: Record<string, string> = {}) {
  const result = await runCli(['export-source', '--staging', join(dir, staging), ...args], { cwd: dir, env: { ...motoServer().env, ...env } });
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return result;
}

/** What two staging files must agree on: every event (its own $import_run aside) and every reject. */
function contents(staging: string) {
  return readStaging(staging, (db) => ({
    events: db.prepare(`SELECT hex(uuid) AS uuid, line, event, timestamp_ms AS ts, json_remove(${STAGED_PROPERTIES_TEXT}, '$."$import_run"') AS p FROM events ORDER BY uuid`).all() as unknown[],
    rejects: db.prepare('SELECT line, field, reason, message FROM rejects ORDER BY line, message').all() as unknown[],
  }));
}

/** Pieces of 64 Ki characters, in the runs of the Avro object killed part-way. */
const AVRO_PIECES = { MIGRATE_TEST_PIECE_CHARS: String(64 * 1024) };
/** Rows of the Avro object killed part-way: about 330 KiB of text, five pieces of AVRO_PIECES. */
const KILLED_ROWS = 2_500;
/** Rows of the Parquet object killed part-way, three digests a note: about 0.9 MiB of text, four pieces over two row groups. */
const PARQUET_KILLED_ROWS = 4_000;

/** A run into m.db killed after its second piece; the line its read had reached. */
async function killedPartWay(dir: string, args: string[], pieces = PIECES): Promise<number> {
  const killed = await stage(dir, 'm.db', args, { ...pieces, MIGRATE_TEST_KILL_AFTER_PIECES: '2' });
  expect(killed.signal).toBe('SIGKILL');
  const line = readStaging(join(dir, 'm.db'), (db) => (db.prepare('SELECT progress_line AS line FROM source_reads').get() as { line: number }).line);
  expect(line).toBeGreaterThan(1);
  return line;
}

/**
 * Rows of a table of events, a few of them bad (no distinct_id), `groupRows` to a row group;
 * each note holds `digests` md5 digests (which do not compress), for a large file of few rows.
 */
async function writeEventsParquet(path: string, rows: number, groupRows = 2048, note = 'n', digests = 1): Promise<void> {
  const digestText = Array.from({ length: digests }, (_, k) => (k === 0 ? 'md5(i::VARCHAR)' : `md5('${k}' || i)`)).join(' || ');
  await writeParquet(
    path,
    `SELECT 'ev' || (i % 3) AS event, CASE WHEN i % 97 = 5 THEN NULL ELSE 'user_' || (i % 11) END AS distinct_id,
      TIMESTAMPTZ '2024-01-01 00:00:00+00' + INTERVAL (i) SECOND AS timestamp, ${digestText} || repeat('${note}', 8) AS note, i AS n FROM range(${rows}) t(i)`,
    'zstd',
    groupRows,
  );
}

const AVRO_EVENT: AvroSchema = {
  type: 'record',
  name: 'event',
  fields: [
    { name: 'event', type: 'string' },
    { name: 'distinct_id', type: 'string' },
    { name: 'timestamp', type: { type: 'long', logicalType: 'timestamp-millis' } },
    { name: 'note', type: 'string' },
  ],
};

function avroRows(count: number) {
  return Array.from({ length: count }, (_, i) => ({ event: `ev${i % 3}`, distinct_id: i % 50 === 7 ? '' : `u${i % 5}`, timestamp: 1704067200000n + BigInt(i) * 1000n, note: `note ${i}` }));
}

/** Every file below `root`, uploaded under `prefix`. */
async function uploadFolder(bucket: string, root: string, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else keys.push(relative(root, path).split('\\').join('/'));
    }
  };
  walk(root);
  for (const key of keys) await motoServer().put(bucket, `${prefix}${key}`, readFileSync(join(root, key)));
  return keys;
}

describe('Parquet and Avro objects of a bucket', () => {
  it('stages Parquet objects (PostHog-style .parquet.zst names) by ranged reads guarded by their ETag, exactly as the same files on disk', async () => {
    const dir = tempDir();
    const local = join(dir, 'local');
    mkdirSync(local);
    // One larger than a small object and than the footer's first read (512 KiB, hyparquet's); one small enough to be fetched whole once.
    await writeEventsParquet(join(local, '2024-01-01T00:00:00-0.parquet.zst'), 10_000, 2048, 'n', 3);
    expect(statSync(join(local, '2024-01-01T00:00:00-0.parquet.zst')).size).toBeGreaterThan(512 * 1024);
    await writeEventsParquet(join(local, '2024-01-01T00:00:00-1.parquet.zst'), 300);
    await motoServer().createBucket('pq-objects');
    await uploadFolder('pq-objects', local, 'exports/');
    const { value: fromBucket, seen } = await throughProxy(motoServer().endpointUrl, { slowDowns: 0 }, (url) =>
      stage(dir, 'bucket.db', ['s3://pq-objects/exports/', '--from', 'posthog', '--json'], { AWS_ENDPOINT_URL_S3: url }),
    );
    expect(fromBucket.code, fromBucket.stderr).toBe(0);
    const fromDisk = await stage(dir, 'disk.db', [local, '--from', 'posthog', '--json']);
    expect(fromDisk.code, fromDisk.stderr).toBe(0);
    const summary = JSON.parse(fromBucket.stdout);
    expect(summary.files.map((f: { path: string }) => f.path)).toEqual(['s3://pq-objects/exports/2024-01-01T00:00:00-0.parquet.zst', 's3://pq-objects/exports/2024-01-01T00:00:00-1.parquet.zst']);
    expect(summary.totals).toEqual(JSON.parse(fromDisk.stdout).totals);
    expect(summary.totals.rowsRead).toBe(10_300);
    expect(contents(join(dir, 'bucket.db'))).toEqual(contents(join(dir, 'disk.db')));
    // The larger object: a read from its start let go after its first bytes, its footer, then its row groups, each naming the ETag it was listed with.
    const gets = seen.filter((r) => r.method === 'GET' && r.url.includes('-0.parquet.zst'));
    expect(gets.map((r) => r.range)).toEqual([undefined, expect.stringMatching(/^bytes=[1-9]\d*-$/), 'bytes=4-']);
    for (const get of gets) expect(get.ifMatch).toMatch(/^"\w+"$/);
    // The small one is fetched once, whole.
    expect(seen.filter((r) => r.method === 'GET' && r.url.includes('-1.parquet.zst'))).toEqual([{ method: 'GET', url: expect.any(String), range: undefined, ifMatch: expect.any(String) }]);
    const objects = readStaging(join(dir, 'bucket.db'), (db) => db.prepare('SELECT key, etag FROM bucket_objects ORDER BY key').all());
    expect(objects).toEqual([
      { key: 'exports/2024-01-01T00:00:00-0.parquet.zst', etag: gets[0]!.ifMatch },
      { key: 'exports/2024-01-01T00:00:00-1.parquet.zst', etag: expect.any(String) },
    ]);
  }, 120_000);

  it('streams an Avro object of many blocks, reading on where a connection dropped, exactly as the same file on disk', async () => {
    const dir = tempDir();
    const file = join(dir, 'events.avro');
    writeAvro(file, AVRO_EVENT, avroRows(3_000), { codec: 'deflate', blockRecords: 64 });
    await motoServer().createBucket('avro-objects');
    await motoServer().put('avro-objects', 'tables/events.avro', readFileSync(file));
    const cut = { keySuffix: 'events.avro', afterBytes: Math.floor(statSync(file).size / 2) };
    const { value: fromBucket, seen } = await throughProxy(motoServer().endpointUrl, { slowDowns: 0, cut }, (url) =>
      stage(dir, 'bucket.db', ['s3://avro-objects/tables/', '--from', 'avro', '--json'], { AWS_ENDPOINT_URL_S3: url }),
    );
    expect(fromBucket.code, fromBucket.stderr).toBe(0);
    expect(seen.some((r) => /^bytes=[1-9]\d*-$/.test(r.range ?? ''))).toBe(true);
    const fromDisk = await stage(dir, 'disk.db', [file, '--from', 'avro', '--json']);
    expect(fromDisk.code, fromDisk.stderr).toBe(0);
    expect(JSON.parse(fromBucket.stdout).totals).toMatchObject({ rowsRead: 3_000, rejected: 60 });
    expect(contents(join(dir, 'bucket.db'))).toEqual(contents(join(dir, 'disk.db')));
  }, 120_000);

  it('resumes a Parquet object killed part-way at the row group of its last piece, and reads a changed one again from its start', async () => {
    const dir = tempDir();
    const file = join(dir, 'big.parquet');
    await writeEventsParquet(file, PARQUET_KILLED_ROWS, 2_048, 'x', 3);
    await motoServer().createBucket('pq-kill');
    await motoServer().put('pq-kill', 'big/events.parquet', readFileSync(file));
    const args = ['s3://pq-kill/big/', '--from', 'parquet', '--workers', '0'];
    const line = await killedPartWay(dir, args);
    expect(line).toBeGreaterThan(2_048); // past the first row group
    const resumed = await stage(dir, 'm.db', [...args, '--json'], PIECES);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).files[0].resumedAtLine).toBe(line);
    const whole = await stage(dir, 'whole.db', [...args, '--json'], PIECES);
    expect(whole.code, whole.stderr).toBe(0);
    expect(contents(join(dir, 'm.db'))).toEqual(contents(join(dir, 'whole.db')));

    // Killed again part-way through another version, then the object replaced: the footer differs, so the read starts over.
    await writeEventsParquet(file, PARQUET_KILLED_ROWS, 2_048, 'y', 3);
    await motoServer().put('pq-kill', 'big/events.parquet', readFileSync(file));
    const killedAgain = await stage(dir, 'm.db', args, { ...PIECES, MIGRATE_TEST_KILL_AFTER_PIECES: '2' });
    expect(killedAgain.signal).toBe('SIGKILL');
    await writeEventsParquet(file, PARQUET_KILLED_ROWS, 2_048, 'z', 3);
    await motoServer().put('pq-kill', 'big/events.parquet', readFileSync(file));
    const rerun = await stage(dir, 'm.db', [...args, '--json', '--replace-changed'], PIECES);
    expect(rerun.code, rerun.stderr).toBe(0);
    const rerunFile = JSON.parse(rerun.stdout).files[0];
    expect(rerunFile.restarted).toMatch(/changed since its interrupted read/);
    expect(rerunFile.rowsRead).toBe(PARQUET_KILLED_ROWS);
  }, 180_000);
});

describe('an Avro object killed part-way', () => {
  it('resumes at the block of its last piece by one ranged GET from that block, and stages what a clean run stages', async () => {
    const dir = tempDir();
    const file = join(dir, 'big.avro');
    writeAvro(
      file,
      AVRO_EVENT,
      avroRows(KILLED_ROWS).map((row, i) => ({ ...row, note: `${row.note} ${'x'.repeat(40)} ${i}` })),
      { codec: 'snappy', blockRecords: 100 },
    );
    await motoServer().createBucket('avro-kill');
    await motoServer().put('avro-kill', 'big/events.avro', readFileSync(file));
    const args = ['s3://avro-kill/big/', '--from', 'avro', '--workers', '0'];
    const line = await killedPartWay(dir, args, AVRO_PIECES);
    const { value: resumed, seen } = await throughProxy(motoServer().endpointUrl, { slowDowns: 0 }, (url) => stage(dir, 'm.db', [...args, '--json'], { ...AVRO_PIECES, AWS_ENDPOINT_URL_S3: url }));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).files[0].resumedAtLine).toBe(line);
    // The object is read through once when opened (its blocks and digest), then from the block holding the next row on.
    const gets = seen.filter((r) => r.url.includes('x-id=GetObject'));
    expect(gets.map((r) => r.range)).toEqual([undefined, expect.stringMatching(/^bytes=[1-9]\d*-$/)]);
    const whole = await stage(dir, 'whole.db', [...args, '--json'], AVRO_PIECES);
    expect(whole.code, whole.stderr).toBe(0);
    expect(contents(join(dir, 'm.db'))).toEqual(contents(join(dir, 'whole.db')));
  }, 120_000);
});

describe('--from heap on a bucket prefix', () => {
  it('reads the manifests under the prefix and stages the objects they list exactly as the same folder on disk', async () => {
    const dir = tempDir();
    const folder = join(dir, 'heap');
    mkdirSync(folder);
    writeHeapFolder(folder);
    await motoServer().createBucket('heap-bucket');
    await uploadFolder('heap-bucket', folder, 'connect/');
    const fromBucket = await stage(dir, 'bucket.db', ['--from', 'heap', 's3://heap-bucket/connect', '--json']);
    expect(fromBucket.code, fromBucket.stderr).toBe(0);
    const fromDisk = await stage(dir, 'disk.db', ['--from', 'heap', folder, '--json']);
    expect(fromDisk.code, fromDisk.stderr).toBe(0);
    const bucketSummary = JSON.parse(fromBucket.stdout);
    const diskSummary = JSON.parse(fromDisk.stdout);
    expect(bucketSummary.files.map((f: { path: string }) => f.path)).toEqual(
      diskSummary.files.map((f: { path: string }) => `s3://heap-bucket/connect/${relative(folder, f.path).split('\\').join('/')}`),
    );
    expect(bucketSummary.totals).toEqual(diskSummary.totals);
    expect(fromBucket.stderr).toContain('sync_3 not read');
    expect(contents(join(dir, 'bucket.db'))).toEqual(contents(join(dir, 'disk.db')));
  }, 120_000);

  it('names a listed object that is missing, and refuses a prefix that is not a Heap folder', async () => {
    const dir = tempDir();
    const folder = join(dir, 'heap');
    mkdirSync(folder);
    writeHeapFolder(folder);
    await motoServer().createBucket('heap-missing');
    const keys = await uploadFolder('heap-missing', folder, '');
    const users = keys.find((key) => key.startsWith('sync_2/users/'))!;
    await motoServer().remove('heap-missing', users);
    const missing = await stage(dir, 'm.db', ['--from', 'heap', 's3://heap-missing/']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain(`1 Heap data files the manifests list are missing: s3://heap-missing/${users} (listed by manifests/sync_2.json)`);
    await motoServer().put('heap-missing', 'other/x.json', '{}');
    const notHeap = await stage(dir, 'm.db', ['--from', 'heap', 's3://heap-missing/other/']);
    expect(notHeap.code).toBe(3);
    expect(notHeap.stderr).toContain('s3://heap-missing/other/: not a Heap Connect folder');
  }, 60_000);
});

describe('an object read by ranges for the Parquet reader', () => {
  it("serves the reader's ranges from windows (one GET each, one window held), and fails naming the object once it changed", async () => {
    await motoServer().createBucket('window-reads');
    const body = Buffer.from(Array.from({ length: 10_000 }, (_, i) => i % 251));
    await motoServer().put('window-reads', 'o.bin', body);
    const { value, seen } = await throughProxy(motoServer().endpointUrl, { slowDowns: 0 }, async (endpointUrl) => {
      const calls = createS3Calls({ endpointUrl, region: 'us-east-1', credentials: MOTO_KEYS, requestTimeoutMs: 30_000 });
      try {
        const context = { calls, clock: testClock(), policy: BUCKET_RETRY_POLICY, endpoint: endpointUrl };
        const { objects } = await listObjects(context, 's3://window-reads/o.bin', []);
        const window = new ObjectWindow(context, { bucket: 'window-reads', url: 's3://window-reads/o.bin', object: objects[0]! }, undefined, undefined, 1_000);
        const parts = await Promise.all([window.slice(100, 300), window.slice(300, 900), window.slice(950, 1_200), window.slice(2_000, 5_000)]);
        await motoServer().put('window-reads', 'o.bin', Buffer.concat([body, body]));
        const changed = await window.slice(6_000, 6_100).then(
          () => undefined,
          (error: Error) => error,
        );
        return { parts: parts.map((part) => Buffer.from(part)), changed };
      } finally {
        calls.close();
      }
    });
    expect(value.parts).toEqual([body.subarray(100, 300), body.subarray(300, 900), body.subarray(950, 1_200), body.subarray(2_000, 5_000)]);
    expect(seen.filter((r) => r.url.includes('x-id=GetObject')).map((r) => r.range)).toEqual(['bytes=100-1099', 'bytes=950-1949', 'bytes=2000-4999', 'bytes=6000-6999']);
    expect(value.changed?.message).toBe('s3://window-reads/o.bin: the object changed while it was being read (its ETag is not the one listed)');
  }, 60_000);
});
