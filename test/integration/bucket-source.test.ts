/**
 * export-source reading s3:// addresses from moto's S3 server on loopback: a prefix of more
 * than a page of objects listed page by page (pages of 10 keys through a proxy), a prefix staged exactly as the same files on disk, gzip and multi-member gzip
 * objects, a PostHog batch export's manifest, a run killed inside an object then resumed (a
 * plain object by a ranged read from its last piece, a gzip one re-read and checked), an object
 * changed between runs, version ids, a missing bucket, throttling and a dropped connection.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ListObjectVersionsCommand, PutBucketVersioningCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET_RETRY_POLICY } from '../../src/buckets/bucket-calls.js';
import { listObjects } from '../../src/buckets/bucket-listing.js';
import { createS3Calls } from '../../src/buckets/s3-client.js';
import { silentReporter } from '../../src/reporter.js';
import { naturalCompare } from '../../src/sources/input-names.js';
import { stageSources, type StageSourcesInput } from '../../src/stage-sources/stage-sources.js';
import { makeZip } from '../../scripts/zip-writer.mjs';
import { startFlakyProxy, throughProxy } from '../helpers/flaky-s3-proxy.js';
import { MOTO_KEYS, startMoto, type MotoServer } from '../helpers/moto-server.js';
import { runCli, type CliOptions } from '../helpers/run-cli.js';
import { readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { testClock } from '../helpers/test-clock.js';
import { STAGED_PROPERTIES_TEXT } from '../helpers/staged-properties.js';

const tempDir = useTempDir();
let moto: MotoServer;

beforeAll(async () => {
  moto = await startMoto();
}, 60_000);
afterAll(async () => {
  await moto?.stop();
});

/** Pieces of 64 Ki bytes instead of 1 MiB (a test hook, see stage-run.ts), in the runs of objects killed part-way. */
const PIECES = { MIGRATE_TEST_PIECE_CHARS: String(64 * 1024) };
/** Lines of the objects killed part-way: about 300 KiB, five pieces. */
const KILLED_ROWS = 2_000;

/** Mixpanel export lines: `{"event", "properties": {distinct_id, time, $insert_id, ...}}`. */
function mixpanelLines(from: number, rows: number, note = 'n'): string {
  const lines: string[] = [];
  for (let i = from; i < from + rows; i++) {
    lines.push(JSON.stringify({ event: `ev${i % 5}`, properties: { distinct_id: `user_${i % 997}`, time: 1704067200 + i * 60, $insert_id: `ins-${i}`, note: note.repeat(20), i } }));
  }
  return lines.join('\n') + '\n';
}

async function stage(dir: string, staging: string, args: string[], env: Record<string, string> = {}, options: Pick<CliOptions, 'ownProcess'> = {}) {
  const result = await runCli(['export-source', '--staging', join(dir, staging), ...args], { cwd: dir, env: { ...moto.env, ...env }, ...options });
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return result;
}

/** A run through a loopback proxy that passes every request on and records it (its Range and If-Match). */
async function stageThroughProxy(dir: string, staging: string, args: string[], env: Record<string, string> = {}) {
  const proxy = await startFlakyProxy(moto.endpointUrl, { slowDowns: 0 });
  try {
    return { result: await stage(dir, staging, args, { ...env, AWS_ENDPOINT_URL_S3: proxy.url }), seen: proxy.seen };
  } finally {
    await proxy.close();
  }
}

/** What two staging files must agree on: every event (its own $import_run aside) and every reject. */
function contents(staging: string) {
  return readStaging(staging, (db) => ({
    events: db.prepare(`SELECT hex(uuid) AS uuid, line, event, timestamp_ms AS ts, json_remove(${STAGED_PROPERTIES_TEXT}, '$."$import_run"') AS p FROM events ORDER BY uuid`).all() as unknown[],
    rejects: db.prepare('SELECT line, field, reason, message FROM rejects ORDER BY line, message').all() as unknown[],
  }));
}

function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [key, body] of Object.entries(files)) {
    mkdirSync(dirname(join(root, key)), { recursive: true });
    writeFileSync(join(root, key), body);
  }
}

async function putTree(bucket: string, files: Record<string, string | Buffer>): Promise<void> {
  const entries = Object.entries(files);
  // A few at a time: moto is one Python process.
  for (let i = 0; i < entries.length; i += 32) await Promise.all(entries.slice(i, i + 32).map(([key, body]) => moto.put(bucket, key, body)));
}

describe('export-source from an S3 bucket', () => {
  it('lists a prefix of more than one page of objects page by page, in natural order, leaving markers out', async () => {
    // Pages of 10 keys (S3 gives 1,000 at most; a proxy asks moto for 10): 101 objects span
    // eleven pages as 1,010 span two of S3's, with moto's own continuation tokens.
    const keys: string[] = [];
    for (let n = 0; n < 101; n++) keys.push(`listed/${String(n % 7).padStart(2, '0')}/part-${n}.json`);
    await moto.createBucket('many');
    await putTree('many', Object.fromEntries([...keys, 'listed/complete', 'listed/00/_SUCCESS'].map((key) => [key, '{}\n'])));
    const { value: listed, seen } = await throughProxy(moto.endpointUrl, { slowDowns: 0, listPageKeys: 10 }, async (endpointUrl) => {
      const calls = createS3Calls({ endpointUrl, region: 'us-east-1', credentials: MOTO_KEYS, requestTimeoutMs: 30_000 });
      const context = { calls, clock: testClock(), policy: BUCKET_RETRY_POLICY, endpoint: endpointUrl };
      return listObjects(context, 's3://many/listed/', ['.json']);
    });
    expect(listed.objects.map((o) => o.key)).toEqual([...keys].sort(naturalCompare));
    expect(seen.filter((r) => r.url.includes('list-type=2')).length).toBe(11);
  }, 120_000);

  it('stages a prefix exactly as the same files on disk', async () => {
    const dir = tempDir();
    const files: Record<string, string | Buffer> = {};
    for (let n = 0; n < 40; n++) files[`exports/2024/${String(n % 7).padStart(2, '0')}/part-${n}.json`] = mixpanelLines(n * 3, 3);
    files['exports/2024/00/big.json.gz'] = gzipSync(mixpanelLines(100_000, 50));
    const markers = { 'exports/2024/complete': '', 'exports/2024/00/_SUCCESS': '', 'exports/2024/.hidden.json': mixpanelLines(900_000, 1) };
    await moto.createBucket('some');
    await putTree('some', { ...files, ...markers });
    writeTree(join(dir, 'local'), files);

    const fromBucket = await stage(dir, 'bucket.db', ['s3://some/exports/', '--from', 'mixpanel', '--json', '--workers', '0']);
    expect(fromBucket.code, fromBucket.stderr).toBe(0);
    const fromDisk = await stage(dir, 'disk.db', [join(dir, 'local'), '--from', 'mixpanel', '--json', '--workers', '0']);
    expect(fromDisk.code, fromDisk.stderr).toBe(0);
    const bucketResult = JSON.parse(fromBucket.stdout);
    expect(bucketResult.files).toHaveLength(41);
    expect(bucketResult.totals.staged).toBe(40 * 3 + 50);
    expect(bucketResult.files.map((f: { path: string }) => f.path)).toContain('s3://some/exports/2024/00/big.json.gz');
    expect(contents(join(dir, 'bucket.db'))).toEqual(contents(join(dir, 'disk.db')));
  }, 120_000);

  it('reads a zip object through ranged reads, entry by entry, as the same zip file on disk', async () => {
    const dir = tempDir();
    const zip = makeZip([
      { name: 'export/b.json.gz', data: gzipSync(mixpanelLines(500, 30)), method: 'store' },
      { name: 'export/a.json', data: Buffer.from(mixpanelLines(0, 40)), method: 'deflate' },
      { name: 'export/readme.md', data: Buffer.from('not data') },
    ]);
    await moto.createBucket('zipped');
    await moto.put('zipped', 'amplitude/export.zip', zip);
    writeFileSync(join(dir, 'export.zip'), zip);
    const fromBucket = await stage(dir, 'bucket.db', ['s3://zipped/amplitude/', '--from', 'mixpanel', '--json']);
    expect(fromBucket.code, fromBucket.stderr).toBe(0);
    expect(JSON.parse(fromBucket.stdout).files.map((f: { path: string }) => f.path)).toEqual(['s3://zipped/amplitude/export.zip!export/a.json', 's3://zipped/amplitude/export.zip!export/b.json.gz']);
    const fromDisk = await stage(dir, 'disk.db', [join(dir, 'export.zip'), '--from', 'mixpanel', '--json']);
    expect(fromDisk.code, fromDisk.stderr).toBe(0);
    expect(contents(join(dir, 'bucket.db'))).toEqual(contents(join(dir, 'disk.db')));
  }, 60_000);

  it('reads gzip and multi-member gzip objects, globs over keys, and a batch export manifest', async () => {
    const dir = tempDir();
    const multi = Buffer.concat(
      mixpanelLines(0, 40)
        .split('\n')
        .filter(Boolean)
        .map((line) => gzipSync(`${line}\n`)),
    );
    await moto.createBucket('gzip-objects');
    await putTree('gzip-objects', {
      'run/a.jsonl.gz': gzipSync(mixpanelLines(1000, 20)),
      'run/b.jsonl.gz': multi,
      'ph/2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00-0.jsonl': mixpanelLines(2000, 5),
      'ph/2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00-1.jsonl': mixpanelLines(3000, 5),
      'ph/2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00-2.jsonl': mixpanelLines(4000, 5),
      'ph/2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00_manifest.json': JSON.stringify({
        files: ['ph/2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00-0.jsonl', 'ph/2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00-1.jsonl'],
      }),
    });
    const result = await stage(dir, 'm.db', ['s3://gzip-objects/run/*.jsonl.gz', 's3://gzip-objects/ph/', '--from', 'mixpanel', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.totals.staged).toBe(20 + 40 + 10);
    expect(json.files.map((f: { path: string }) => f.path)).toEqual([
      's3://gzip-objects/run/a.jsonl.gz',
      's3://gzip-objects/run/b.jsonl.gz',
      's3://gzip-objects/ph/2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00-0.jsonl',
      's3://gzip-objects/ph/2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00-1.jsonl',
    ]);
  }, 120_000);

  it('a run whose manifest lists an object not in the bucket: the others are staged, then the run fails naming it', async () => {
    const dir = tempDir();
    const run = 'ph/2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00';
    await moto.createBucket('incomplete-run');
    await putTree('incomplete-run', {
      [`${run}-0.jsonl`]: mixpanelLines(0, 5),
      [`${run}_manifest.json`]: JSON.stringify({ files: [`${run}-0.jsonl`, `s3://incomplete-run/${run}-1.jsonl`] }),
    });
    const result = await stage(dir, 'm.db', ['s3://incomplete-run/ph/', '--from', 'mixpanel', '--json']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`s3://incomplete-run/${run}-1.jsonl: listed by s3://incomplete-run/${run}_manifest.json but not in the bucket`);
    expect(JSON.parse(result.stdout)).toMatchObject({ totals: { staged: 5 }, incomplete: [expect.stringContaining(`${run}-1.jsonl`)] });
  }, 60_000);

  it('resumes a gzip object killed part-way at its last piece (re-read and checked up to there): every row once, as if never interrupted', async () => {
    const dir = tempDir();
    await moto.createBucket('kill');
    await moto.put('kill', 'big/events.json.gz', gzipSync(mixpanelLines(0, KILLED_ROWS, 'x')));
    const args = ['s3://kill/big/', '--from', 'mixpanel', '--workers', '0'];
    const killed = await stage(dir, 'm.db', args, { ...PIECES, MIGRATE_TEST_KILL_AFTER_PIECES: '2' });
    expect(killed.signal).toBe('SIGKILL');
    const partial = JSON.parse((await runCli(['status', '--json', '--staging', join(dir, 'm.db')], { cwd: dir })).stdout);
    expect(partial.sources).toMatchObject([{ status: 'partial' }]);
    expect(partial.bucketPrefixes).toEqual([{ prefix: 's3://kill/big/', objects: 1, done: 0, partial: 1, pending: 0, sizeBytes: expect.any(Number) }]);
    const resumed = await stage(dir, 'm.db', [...args, '--json'], PIECES);
    expect(resumed.code, resumed.stderr).toBe(0);
    const status = await runCli(['status', '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(status.stdout).toMatch(/Bucket objects by prefix:\n.*\n\s+s3:\/\/kill\/big\/\s+1\s+\S+ \S+\s+1\s+0\s+0/);
    expect(JSON.parse(resumed.stdout).files[0].resumedAtLine).toBe(partial.sources[0].progressLine);
    const whole = await stage(dir, 'whole.db', [...args, '--json'], PIECES);
    expect(whole.code).toBe(0);
    expect(JSON.parse(resumed.stdout).totals.staged).toBe(KILLED_ROWS);
    expect(contents(join(dir, 'm.db'))).toEqual(contents(join(dir, 'whole.db')));
  }, 120_000);

  it('resumes a plain object with a ranged read from its last piece, guarded by its ETag, and stages what a clean run stages', async () => {
    const dir = tempDir();
    await moto.createBucket('ranged');
    const text = mixpanelLines(0, KILLED_ROWS, 'x');
    await moto.put('ranged', 'big/events.json', text);
    const args = ['s3://ranged/big/', '--from', 'mixpanel', '--workers', '0'];
    const killed = await stage(dir, 'm.db', args, { ...PIECES, MIGRATE_TEST_KILL_AFTER_PIECES: '2' });
    expect(killed.signal).toBe('SIGKILL');
    const point = readStaging(join(dir, 'm.db'), (db) => db.prepare('SELECT progress_line AS line, progress_bytes AS bytes, source_etag AS etag FROM source_reads').get()) as {
      line: number;
      bytes: number;
      etag: string;
    };
    // The bytes recorded are those of the lines staged: the ranged read starts at the next line.
    expect(point.bytes).toBe(
      Buffer.byteLength(
        text
          .split('\n')
          .slice(0, point.line - 1)
          .join('\n'),
      ) + 1,
    );
    expect(point.bytes).toBeGreaterThan(0);
    const { result: resumed, seen } = await stageThroughProxy(dir, 'm.db', [...args, '--json'], PIECES);
    expect(resumed.code, resumed.stderr).toBe(0);
    const gets = seen.filter((r) => r.method === 'GET' && r.url.includes('events.json'));
    // The object's head is looked at from its start (its encoding, gzip or not); its rest is read from the byte before the point.
    expect(gets.filter((r) => r.range !== undefined)).toEqual([{ method: 'GET', url: expect.any(String), range: `bytes=${point.bytes - 1}-`, ifMatch: point.etag }]);
    expect(JSON.parse(resumed.stdout).files[0].resumedAtLine).toBe(point.line);
    const whole = await stage(dir, 'whole.db', [...args, '--json'], PIECES);
    expect(whole.code).toBe(0);
    expect(JSON.parse(resumed.stdout).totals.staged).toBe(KILLED_ROWS);
    expect(contents(join(dir, 'm.db'))).toEqual(contents(join(dir, 'whole.db')));
  }, 120_000);

  it('never resumes by range an object whose ETag changed since its interrupted read: it is read from its start as a changed file', async () => {
    const dir = tempDir();
    await moto.createBucket('replaced');
    await moto.put('replaced', 'big/events.json', mixpanelLines(0, KILLED_ROWS, 'x'));
    const args = ['s3://replaced/big/', '--from', 'mixpanel', '--workers', '0'];
    // Both runs through one proxy: an object of another endpoint with other content is another store's, refused.
    const proxy = await startFlakyProxy(moto.endpointUrl, { slowDowns: 0 });
    const rerun = await (async () => {
      try {
        // A real SIGKILL of a process of its own (the other kills here are the hook's in-process
        // stand-in): a run stopped in-process leaves an object's read going on after it returned
        // (a ranged GET from the byte reached), which this proxy would count as the rerun's.
        const killed = await stage(dir, 'm.db', args, { ...PIECES, MIGRATE_TEST_KILL_AFTER_PIECES: '2', AWS_ENDPOINT_URL_S3: proxy.url }, { ownProcess: true });
        expect(killed.signal).toBe('SIGKILL');
        await moto.put('replaced', 'big/events.json', mixpanelLines(100_000, KILLED_ROWS, 'y'));
        proxy.seen.length = 0;
        return await stage(dir, 'm.db', [...args, '--json'], { ...PIECES, AWS_ENDPOINT_URL_S3: proxy.url });
      } finally {
        await proxy.close();
      }
    })();
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(proxy.seen.filter((r) => r.method === 'GET' && r.range !== undefined)).toEqual([]);
    const file = JSON.parse(rerun.stdout).files[0];
    expect(file.restarted).toMatch(/changed since its interrupted read/);
    expect(file.rowsRead).toBe(KILLED_ROWS);
    expect(file.staged).toBe(KILLED_ROWS);
  }, 120_000);

  it('records the version id of objects in a versioned bucket, none in an unversioned one', async () => {
    const dir = tempDir();
    await moto.createBucket('versioned');
    await moto.client.send(new PutBucketVersioningCommand({ Bucket: 'versioned', VersioningConfiguration: { Status: 'Enabled' } }));
    await moto.put('versioned', 'v/a.json', mixpanelLines(0, 5));
    const put = await moto.client.send(new PutObjectCommand({ Bucket: 'versioned', Key: 'v/b.json', Body: mixpanelLines(5, 5) }));
    await moto.put('versioned', 'v/a.json', mixpanelLines(0, 6));
    await moto.createBucket('unversioned');
    await moto.put('unversioned', 'u/c.json', mixpanelLines(20, 5));
    const result = await stage(dir, 'm.db', ['s3://versioned/v/', 's3://unversioned/u/', '--from', 'mixpanel']);
    expect(result.code, result.stderr).toBe(0);
    const rows = readStaging(join(dir, 'm.db'), (db) => db.prepare('SELECT url, version_id AS versionId FROM bucket_objects ORDER BY url').all()) as Array<{ url: string; versionId: string | null }>;
    const versions = await moto.client.send(new ListObjectVersionsCommand({ Bucket: 'versioned' }));
    const latestA = versions.Versions?.find((v) => v.Key === 'v/a.json' && v.IsLatest === true)?.VersionId;
    expect(put.VersionId).toEqual(expect.any(String));
    expect(rows).toEqual([
      { url: 's3://unversioned/u/c.json', versionId: null },
      { url: 's3://versioned/v/a.json', versionId: latestA },
      { url: 's3://versioned/v/b.json', versionId: put.VersionId },
    ]);
  }, 60_000);

  it('treats an object changed between runs as a changed file: the new row staged, the gone one withdrawn', async () => {
    const dir = tempDir();
    await moto.createBucket('changing');
    const lines = mixpanelLines(0, 10).split('\n');
    await moto.put('changing', 'e/day.json', lines.join('\n'));
    const first = await stage(dir, 'm.db', ['s3://changing/e/day.json', '--from', 'mixpanel', '--json']);
    expect(first.code, first.stderr).toBe(0);
    lines[3] = JSON.stringify({ event: 'corrected', properties: { distinct_id: 'user_3', time: 1704067380, $insert_id: 'ins-3' } });
    await moto.put('changing', 'e/day.json', lines.join('\n'));
    const second = await stage(dir, 'm.db', ['s3://changing/e/day.json', '--from', 'mixpanel', '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).totals).toMatchObject({ staged: 1, alreadyStaged: 9, withdrawn: 1 });
  }, 60_000);

  it('names a missing bucket and an empty prefix in words, and exits non-zero', async () => {
    const dir = tempDir();
    const noBucket = await stage(dir, 'm.db', ['s3://no-such-bucket-here/x/', '--from', 'mixpanel']);
    expect(noBucket.code).toBe(3);
    expect(noBucket.stderr).toContain('no such bucket "no-such-bucket-here"');
    await moto.createBucket('empty');
    const empty = await stage(dir, 'm.db', ['s3://empty/nothing/', '--from', 'mixpanel']);
    expect(empty.code).toBe(3);
    expect(empty.stderr).toContain('s3://empty/nothing/: no source objects there');
    expect(`${noBucket.stderr}${empty.stderr}`).not.toContain(MOTO_KEYS.secretAccessKey);
  }, 60_000);
});

describe("doctor's look at bucket sources", () => {
  it('lists and reads each address and sums its objects; a missing bucket is a failure in words', async () => {
    const { probePrefixes } = await import('../../src/buckets/probe-prefixes.js');
    await moto.createBucket('doctor');
    await putTree('doctor', { 'p/a.json': mixpanelLines(0, 10), 'p/b.json.gz': gzipSync(mixpanelLines(10, 10)), 'p/notes.md': 'x' });
    const probes = await probePrefixes({
      addresses: ['s3://doctor/p/', 's3://no-such-doctor-bucket/'],
      extensions: ['.json'],
      choices: { endpointUrl: moto.endpointUrl, keyEnv: { accessKeyId: 'AWS_ACCESS_KEY_ID', secretAccessKey: 'AWS_SECRET_ACCESS_KEY' } },
      env: moto.env,
      clock: testClock(),
      policy: { initialDelayMs: 1, maxDelayMs: 1, maxTotalWaitMs: 10 },
    });
    expect(probes[0]).toMatchObject({ type: 'readable', objects: 2, compressedBytes: expect.any(Number) });
    expect(probes[1]).toMatchObject({ type: 'failed', message: expect.stringContaining('no such bucket') });
  }, 60_000);
});

describe('throttling and dropped connections, through the one retry path on the injected clock', () => {
  function input(dir: string, file: string, endpointUrl: string): StageSourcesInput {
    return {
      files: [file],
      staging: join(dir, 'm.db'),
      command: 'export-source',
      format: 'mixpanel',
      readerOptions: { inferTypes: true, columns: {} },
      rules: { nowMs: Date.UTC(2026, 0, 1) },
      recordedOptions: {},
      workers: 0,
      expandInputs: true,
      // Keys through the config's variables: the SDK's own chain reads this process's environment.
      buckets: { choices: { endpointUrl, keyEnv: { accessKeyId: 'AWS_ACCESS_KEY_ID', secretAccessKey: 'AWS_SECRET_ACCESS_KEY' } }, env: moto.env },
    };
  }

  it('waits out SlowDown answers and reads on from the byte reached when a connection drops', async () => {
    const dir = tempDir();
    await moto.createBucket('flaky');
    const body = gzipSync(mixpanelLines(0, 3_000));
    await moto.put('flaky', 'p/events.json.gz', body);
    const proxy = await startFlakyProxy(moto.endpointUrl, { slowDowns: 3, cut: { keySuffix: 'events.json.gz', afterBytes: Math.floor(body.length / 2) } });
    const clock = testClock();
    try {
      const result = await stageSources(input(dir, 's3://flaky/p/', proxy.url), silentReporter, new AbortController().signal, clock);
      expect(result.totals.staged).toBe(3_000);
    } finally {
      await proxy.close();
    }
    expect(clock.waits.length).toBeGreaterThanOrEqual(4);
    expect(proxy.seen.some((r) => /^bytes=[1-9]\d*-$/.test(r.range ?? ''))).toBe(true);
  }, 60_000);

  it('gives up after the retry budget with the endpoint and the failure in words', async () => {
    const dir = tempDir();
    await moto.createBucket('throttled');
    await moto.put('throttled', 'p/a.json', mixpanelLines(0, 3));
    const proxy = await startFlakyProxy(moto.endpointUrl, { slowDowns: 10_000 });
    try {
      await expect(stageSources(input(dir, 's3://throttled/p/', proxy.url), silentReporter, new AbortController().signal, testClock())).rejects.toThrow(
        /kept failing \(HTTP 503 SlowDown\), after retries/,
      );
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
