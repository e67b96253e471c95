/**
 * export-source over s3:// addresses where a bucket's answers are not what a simple listing
 * expects: the same key at two endpoints, errors that no retry mends (no credentials, an
 * endpoint without a scheme), an endpoint that is not S3, keys that look like globs or hold
 * control characters, a batch export copied under another prefix, a listing page marked
 * truncated without a token, and reruns over objects already staged; doctor --source on an
 * endpoint that is not S3 and on a batch export missing a file. moto's S3 server on loopback,
 * and a recording proxy in front of it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFlakyProxy } from '../helpers/flaky-s3-proxy.js';
import { useMoto } from '../helpers/moto-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const motoServer = useMoto();
const sandboxAt = useSandbox();

function mixpanelLines(from: number, rows: number): string {
  const lines: string[] = [];
  for (let i = from; i < from + rows; i++) lines.push(JSON.stringify({ event: `ev${i % 5}`, properties: { distinct_id: `user_${i % 97}`, time: 1704067200 + i * 60, $insert_id: `ins-${i}`, i } }));
  return lines.join('\n') + '\n';
}

async function stage(dir: string, args: string[], env: Record<string, string | undefined> = {}) {
  const result = await runCli(['export-source', '--staging', join(dir, 'm.db'), '--from', 'mixpanel', ...args], { cwd: dir, env: { ...motoServer().env, ...env } });
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return result;
}

/** `doctor --source` (with a sandbox project to check) and its buckets check, from --json. */
async function doctorBuckets(dir: string, args: string[]): Promise<{ verdict: string; message: string }> {
  const config = writeSandboxConfig(dir, await sandboxAt());
  const result = await runCli(['doctor', '--project', 'test', '--config', config, '--staging', join(dir, 'doctor.db'), '--json', '--source', ...args], { cwd: dir, env: motoServer().env });
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.code).not.toBe(0);
  const report = JSON.parse(result.stdout) as { checks: Array<{ check: string; verdict: string; message: string }> };
  return report.checks.find((c) => c.check === 'buckets')!;
}

function stagedCount(dir: string): number {
  return readStaging(join(dir, 'm.db'), (db) => db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
}

describe('the same key at two endpoints', () => {
  it('refuses an object of another endpoint with other content instead of withdrawing the staged one', async () => {
    const dir = tempDir();
    const moto = motoServer();
    await moto.createBucket('exports');
    await moto.put('exports', 'events/part-0.jsonl', mixpanelLines(0, 50));
    const first = await stage(dir, ['s3://exports/events/part-0.jsonl']);
    expect(first.code, first.stderr).toBe(0);
    // Another store holding the same bucket and key: a proxy is another endpoint, and the object there differs.
    await moto.put('exports', 'events/part-0.jsonl', mixpanelLines(1_000, 50));
    const proxy = await startFlakyProxy(moto.endpointUrl, { slowDowns: 0 });
    try {
      const second = await stage(dir, ['s3://exports/events/part-0.jsonl'], { AWS_ENDPOINT_URL_S3: proxy.url });
      expect(second.code).toBe(6);
      expect(second.stderr).toContain(`s3://exports/events/part-0.jsonl: staged before from ${moto.endpointUrl}; the object under that key at ${proxy.url} is another one`);
      expect(second.stderr).not.toMatch(/\d+ withdrawn/);
    } finally {
      await proxy.close();
    }
    expect(stagedCount(dir)).toBe(50);
  }, 60_000);
});

describe('failures that no retry mends end the run at once, in one line', () => {
  it('no credentials at all: exit 4, without five minutes of retries', async () => {
    const dir = tempDir();
    const none = {
      AWS_ACCESS_KEY_ID: undefined,
      AWS_SECRET_ACCESS_KEY: undefined,
      AWS_SESSION_TOKEN: undefined,
      AWS_PROFILE: undefined,
      AWS_CONFIG_FILE: join(dir, 'no-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
      // Only loopback is ever contacted: the instance role's metadata service is not asked.
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: undefined,
      AWS_CONTAINER_CREDENTIALS_FULL_URI: undefined,
      AWS_WEB_IDENTITY_TOKEN_FILE: undefined,
    };
    const result = await stage(dir, ['s3://exports/events/'], none);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/s3:\/\/exports\/events\/: no AWS credentials were found/);
    expect(result.stderr).not.toMatch(/trying again/);
  }, 30_000);

  it('an endpoint without its scheme: exit 2, naming the endpoint and how to write it', async () => {
    const dir = tempDir();
    const port = new URL(motoServer().endpointUrl).port;
    const result = await stage(dir, ['s3://exports/events/', '--endpoint-url', `127.0.0.1:${port}`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`the bucket endpoint "127.0.0.1:${port}" is not an http:// or https:// URL`);
    expect(result.stderr).toContain(`http://127.0.0.1:${port}`);
    expect(result.stderr).not.toMatch(/trying again/);
  }, 30_000);
});

describe('keys that look like patterns or hold control characters', () => {
  it('reads a key with [ ] or { } named exactly, and lists a prefix holding a key with a carriage return', async () => {
    const dir = tempDir();
    const moto = motoServer();
    await moto.createBucket('odd');
    await moto.put('odd', 'keys/events [1].json', mixpanelLines(0, 3));
    await moto.put('odd', 'keys/events {2}.json', mixpanelLines(3, 3));
    await moto.put('odd', 'keys/events\r3.json', mixpanelLines(6, 3));
    const bracket = await stage(dir, ['s3://odd/keys/events [1].json', 's3://odd/keys/events {2}.json', '--json']);
    expect(bracket.code, bracket.stderr).toBe(0);
    expect(JSON.parse(bracket.stdout).totals.staged).toBe(6);
    const all = await stage(dir, ['s3://odd/keys/', '--json']);
    expect(all.code, all.stderr).toBe(0);
    const result = JSON.parse(all.stdout);
    expect(result.files.map((f: { path: string }) => f.path)).toContain('s3://odd/keys/events\r3.json');
    // The two objects staged by name are unchanged since: not read again.
    expect(result.unchanged).toEqual(['s3://odd/keys/events [1].json', 's3://odd/keys/events {2}.json']);
    expect(result.totals).toMatchObject({ staged: 3, alreadyStaged: 0 });
  }, 60_000);
});

describe('a batch export copied under another prefix', () => {
  it("maps the manifest's keys to the objects beside it, as the same folder on disk is read", async () => {
    const dir = tempDir();
    const moto = motoServer();
    const run = '2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00';
    await moto.createBucket('copied');
    // `aws s3 sync s3://exports/events/ s3://copied/backup/events/`: the manifest still lists the keys the export wrote.
    await moto.put('copied', `backup/events/${run}-0.jsonl`, mixpanelLines(0, 5));
    await moto.put('copied', `backup/events/${run}-1.jsonl`, mixpanelLines(5, 5));
    await moto.put('copied', `backup/events/${run}_manifest.json`, JSON.stringify({ files: [`events/${run}-0.jsonl`, `events/${run}-1.jsonl`] }));
    const result = await stage(dir, ['s3://copied/backup/events/', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/left out/);
    expect(JSON.parse(result.stdout).totals.staged).toBe(10);
  }, 60_000);
});

describe('a rerun over a prefix staged before', () => {
  it('fetches no object unchanged since it was staged: only the listing, and the object that changed', async () => {
    const dir = tempDir();
    const moto = motoServer();
    await moto.createBucket('rerun');
    for (let n = 0; n < 12; n++) await moto.put('rerun', `events/part-${n}.json`, mixpanelLines(n * 10, 10));
    const proxy = await startFlakyProxy(moto.endpointUrl, { slowDowns: 0 });
    try {
      const env = { AWS_ENDPOINT_URL_S3: proxy.url };
      const first = await stage(dir, ['s3://rerun/events/', '--json'], env);
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout).totals.staged).toBe(120);
      const objectGets = () => proxy.seen.filter((r) => r.method === 'GET' && r.url.includes('x-id=GetObject'));
      proxy.seen.length = 0;
      const again = await stage(dir, ['s3://rerun/events/', '--json'], env);
      expect(again.code, again.stderr).toBe(0);
      expect(objectGets()).toEqual([]);
      expect(JSON.parse(again.stdout)).toMatchObject({ files: [], unchanged: expect.arrayContaining(['s3://rerun/events/part-0.json']), totals: { rowsRead: 0 } });
      expect(JSON.parse(again.stdout).unchanged).toHaveLength(12);

      await moto.put('rerun', 'events/part-3.json', mixpanelLines(5_000, 10));
      proxy.seen.length = 0;
      const changed = await stage(dir, ['s3://rerun/events/', '--json'], env);
      expect(changed.code, changed.stderr).toBe(0);
      expect(new Set(objectGets().map((r) => r.url.split('?')[0]))).toEqual(new Set(['/rerun/events/part-3.json']));
      expect(JSON.parse(changed.stdout).totals).toMatchObject({ rowsRead: 10, staged: 10, withdrawn: 10 });

      proxy.seen.length = 0;
      const reread = await stage(dir, ['s3://rerun/events/', '--json', '--reread'], env);
      expect(reread.code, reread.stderr).toBe(0);
      expect(new Set(objectGets().map((r) => r.url.split('?')[0])).size).toBe(12);
    } finally {
      await proxy.close();
    }
  }, 90_000);
});

describe('an endpoint that is not S3', () => {
  it('says the answer is not an S3 listing, in export-source and doctor --source, instead of an empty prefix', async () => {
    const dir = tempDir();
    // A console port: a web page for every request.
    const page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><head><title>Console</title></head><body></body></html>'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    try {
      const staged = await stage(dir, ['s3://exports/events/'], { AWS_ENDPOINT_URL_S3: url });
      expect(staged.code).toBe(3);
      expect(staged.stderr).toContain(`s3://exports/events/: ${url} answered, but not with an S3 listing`);
      expect(staged.stderr).not.toMatch(/no source objects there|nothing is stored there/);
      // doctor --source looks at a prefix through the same listing.
      const buckets = await doctorBuckets(dir, ['s3://exports/events/', '--endpoint-url', url]);
      expect(buckets).toMatchObject({ verdict: 'problem', message: expect.stringContaining(`s3://exports/events/: ${url} answered, but not with an S3 listing`) });
      expect(buckets.message).not.toMatch(/no matching object|no source objects|empty/);
    } finally {
      page.closeAllConnections();
      await new Promise((resolve) => page.close(resolve));
    }
  }, 60_000);
});

describe('addresses in status, rejects and doctor --source', () => {
  it('prints s3:// addresses whole, and doctor --source fails a batch export run whose manifest lists a missing file', async () => {
    const dir = tempDir();
    const moto = motoServer();
    const run = '2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00';
    await moto.createBucket('shown');
    await moto.put('shown', `ph/${run}-0.jsonl`, `${mixpanelLines(0, 2)}{"event":"","properties":{"time":1704067200}}\n`);
    await moto.put('shown', `ph/${run}_manifest.json`, JSON.stringify({ files: [`ph/${run}-0.jsonl`, `ph/${run}-1.jsonl`] }));
    const staged = await stage(dir, ['s3://shown/ph/']);
    expect(staged.code).toBe(3);
    const status = await runCli(['status', '--staging', join(dir, 'm.db')], { cwd: dir });
    // The table shortens long names in the middle: their start is the address, two slashes and all.
    expect(status.stdout).toMatch(/^\s+s3:\/\/sho\S*-0\.jsonl\s+mixpanel/m);
    expect(status.stdout).not.toMatch(/s3:\/[^/]/);
    const rejects = await runCli(['rejects', '--staging', join(dir, 'm.db')], { cwd: dir });
    expect(rejects.stdout).toContain(`s3://shown/ph/${run}-0.jsonl:3`);
    expect(rejects.stdout).not.toMatch(/s3:\/[^/]/);
    const buckets = await doctorBuckets(dir, ['s3://shown/ph/', '--from', 'mixpanel', '--endpoint-url', moto.endpointUrl]);
    expect(buckets).toMatchObject({ verdict: 'problem', message: expect.stringContaining(`s3://shown/ph/${run}-1.jsonl: listed by`) });
  }, 60_000);
});

describe('a listing page marked truncated without a continuation token', () => {
  it("goes on after the page's last key: every object is staged, none twice", async () => {
    const dir = tempDir();
    const moto = motoServer();
    await moto.createBucket('paged');
    for (let n = 0; n < 5; n++) await moto.put('paged', `events/part-${n}.json`, mixpanelLines(n * 4, 4));
    const proxy = await startFlakyProxy(moto.endpointUrl, { slowDowns: 0, tokenlessPages: 2 });
    try {
      const staged = await stage(dir, ['s3://paged/events/', '--json'], { AWS_ENDPOINT_URL_S3: proxy.url });
      expect(staged.code, staged.stderr).toBe(0);
      expect(JSON.parse(staged.stdout).totals).toMatchObject({ rowsRead: 20, staged: 20 });
      const listings = proxy.seen.filter((r) => /[?&]list-type=2/.test(r.url));
      expect(listings.map((r) => new URL(r.url, proxy.url).searchParams.get('start-after'))).toEqual([null, 'events/part-1.json', 'events/part-3.json']);
    } finally {
      await proxy.close();
    }
    expect(stagedCount(dir)).toBe(20);
  }, 60_000);
});
