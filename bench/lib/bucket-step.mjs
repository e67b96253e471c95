// The bucket step: the Mixpanel source staged from moto's S3 server on loopback, to compare with
// the same file staged from local disk in the same run (the export step). moto is started on a
// free port for the step and stopped after it; the file is uploaded once, in one PUT of the bytes
// in memory (a streamed upload is sent aws-chunked, which moto decodes very slowly): keep --events small.
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { parseJson, removeStaging } from './bench-steps.mjs';
import { measureNode } from './measure-process.mjs';

const KEYS = { accessKeyId: 'bench-access-key', secretAccessKey: 'bench-secret-key' };

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/** @param {string} url @param {import('node:child_process').ChildProcess} child */
async function waitUntilUp(url, child) {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode} (is moto[server] installed?)`);
    try {
      await fetch(`${url}/moto-api/`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('moto_server did not start within 30 s');
}

/**
 * @param {import('./bench-steps.mjs').BenchPaths} p
 * @param {import('./bench-steps.mjs').FormatFiles} f the mixpanel source
 */
export async function bucketStep(p, f) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  child.once('error', () => {});
  const staged = `${f.staged}.bucket.db`;
  try {
    await waitUntilUp(url, child);
    const client = new S3Client({ endpoint: url, region: 'us-east-1', forcePathStyle: true, credentials: KEYS });
    await client.send(new CreateBucketCommand({ Bucket: 'bench' }));
    await client.send(new PutObjectCommand({ Bucket: 'bench', Key: 'mixpanel/source.jsonl', Body: readFileSync(f.source) }));
    client.destroy();
    removeStaging(staged);
    const env = { AWS_ENDPOINT_URL_S3: url, AWS_ACCESS_KEY_ID: KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: KEYS.secretAccessKey, AWS_REGION: 'us-east-1' };
    const args = [p.cli, 'export-source', '--from', 'mixpanel', 's3://bench/mixpanel/source.jsonl', '--staging', staged, '--quiet', '--json'];
    const m = await measureNode(args, { label: 'migrate export-source s3://', env });
    const totals = parseJson(m.stdout, 'migrate export-source s3://').totals;
    return { rows: totals.rowsRead, staged: totals.staged, wallMs: m.wallMs, peakRssBytes: m.peakRssBytes, sourceBytes: statSync(f.source).size };
  } finally {
    removeStaging(staged);
    child.kill('SIGTERM');
  }
}
