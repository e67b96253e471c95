/**
 * `exports create` when PostHog's render outlasts `--wait-ms`: the request gets no answer, and
 * the export it made is found among the caller's exports instead of creating another. The
 * sandbox's render wait (`exportRenderMs`) is a promise the test releases: no real sleeping
 * beyond the client's own short timeout.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pauseExportRendering, resumeExportRendering } from '../../src/sandbox/api/export-scheduler.js';
import { startRelay } from '../helpers/loopback-servers.js';
import { startManagementSandbox, type ManagementSandbox } from '../helpers/management-sandbox.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
/**
 * The client's bound on the create request. Real time, as a timeout is; long enough that even a
 * loaded machine delivers the request to the server before the client gives up on the answer.
 */
const WAIT_MS = '1500';
const pending: Array<() => void> = [];
const releaseRenders = () => pending.splice(0).forEach((release) => release());
let sb: ManagementSandbox;

beforeAll(async () => {
  sb = await startManagementSandbox({ api: { exportRenderMs: 600_000, sleep: () => new Promise<void>((resolve) => pending.push(resolve)) } });
});
afterAll(async () => {
  releaseRenders();
  await sb.sandbox.close();
});

function exportCount(): number {
  return (sb.store.db.prepare('SELECT count(*) AS n FROM exports').get() as { n: number }).n;
}

describe('a create request that outlasts --wait-ms', () => {
  it('finds the export the request made instead of creating another', async () => {
    const config = sb.writeConfig(tempDir(), { test: {} });
    const before = exportCount();
    const result = await sb.cli(config, ['exports', 'create', '--insight', '1', '--format', 'text/csv', '--wait-ms', WAIT_MS, '--project', 'test']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/PostHog did not answer the create request within 1.5 s; found export (\d+), which it made/);
    const id = /found export (\d+)/.exec(result.stderr)![1];
    expect(result.stdout).toContain(`Export ${id} created (text/csv).`);
    expect(result.stdout).toMatch(/^status\s+rendering$/m);
    expect(exportCount()).toBe(before + 1);
    releaseRenders();
  });

  it('with --wait, then waits for the render of the export it found', async () => {
    const relay = await startRelay(sb.sandbox.url, {
      // The render finishes once the client is looking for its export.
      onRequest: (seen) => seen.method === 'GET' && seen.url.split('?')[0] === '/api/projects/1/exports/' && releaseRenders(),
    });
    try {
      const config = sb.writeConfig(tempDir(), { test: { apiHost: relay.url, host: sb.sandbox.url } });
      const before = exportCount();
      const result = await sb.cli(config, [
        'exports',
        'create',
        '--context',
        '{"event":"$pageview","title":"Late"}',
        '--format',
        'application/json',
        '--wait-ms',
        WAIT_MS,
        '--wait',
        '--poll-interval-ms',
        '0',
        '--project',
        'test',
      ]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^status\s+ready$/m);
      expect(result.stdout).toMatch(/^filename\s+export-late-/m);
      expect(exportCount()).toBe(before + 1);
      expect(relay.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    } finally {
      await relay.close();
    }
  });

  it('says what to do when no export matching the request is listed, and creates none itself', async () => {
    const posts: string[] = [];
    const server = createServer((req, res) => {
      if (req.method === 'POST') return void posts.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ count: 0, next: null, previous: null, results: [] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const config = sb.writeConfig(tempDir(), { test: { apiHost: url, host: url } });
      const result = await sb.cli(config, ['exports', 'create', '--insight', '1', '--format', 'image/png', '--wait-ms', WAIT_MS, '--project', 'test']);
      expect(result.code).toBe(8);
      expect(result.stderr).toContain('error: PostHog did not answer the export request within 1.5 s, and no export matching it is listed yet');
      expect(result.stderr).toContain('look with `migrate exports list --project test` in a minute before creating it again');
      expect(posts).toEqual(['/api/projects/1/exports/']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('older PostHog: content answers 404 until the export is rendered', () => {
  it('download waits for has_content, so the 404 of unready content is never met', async () => {
    const old = await startManagementSandbox({ api: { exportContent404UntilReady: true } });
    try {
      pauseExportRendering(old.store);
      const dir = tempDir();
      const direct = old.writeConfig(dir, { test: {} });
      const created = JSON.parse((await old.cli(direct, ['exports', 'create', '--insight', '1', '--format', 'text/csv', '--json', '--project', 'test'])).stdout) as { id: number; filename: string };
      let polls = 0;
      const relay = await startRelay(old.sandbox.url, {
        onRequest: (seen) => seen.url.split('?')[0] === `/api/projects/1/exports/${created.id}/` && ++polls === 3 && resumeExportRendering(old.store),
      });
      try {
        const config = old.writeConfig(dir, { test: { apiHost: relay.url, host: old.sandbox.url } });
        const result = await old.cli(config, ['exports', 'download', String(created.id), '--poll-interval-ms', '0', '--project', 'test']);
        expect(result.code).toBe(0);
        expect(result.stdout).toContain(`Saved ${dir}/${created.filename}`);
        expect(relay.requests.filter((r) => r.url.includes('/content/'))).toHaveLength(1);
      } finally {
        await relay.close();
      }
    } finally {
      await old.sandbox.close();
    }
  });
});
