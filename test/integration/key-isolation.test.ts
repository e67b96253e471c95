/**
 * The personal key goes to the configured API host's /api/ and nowhere else: not to another
 * port a page link names, not to the ingestion host, not to a storage host a download is
 * redirected to. A trap server on loopback proves it by what it did (not) receive.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { insertGroups, startManagementSandbox, type ManagementSandbox } from '../helpers/management-sandbox.js';
import { startRelay, startTrap, type LoopbackServer } from '../helpers/loopback-servers.js';
import { useTempDir } from '../helpers/temp-dir.js';

const PROJECT_KEY = 'phc_projectKeyThatMustNeverReachTheApi';
const PNG_BYTES = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

let sb: ManagementSandbox;
const tempDir = useTempDir();
const servers: LoopbackServer[] = [];

beforeAll(async () => {
  sb = await startManagementSandbox();
  insertGroups(sb.store, 1, 0, 150, 'org');
});
afterAll(() => sb.sandbox.close());
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function serve<T extends LoopbackServer>(server: Promise<T>): Promise<T> {
  const started = await server;
  servers.push(started);
  return started;
}

function configFor(apiHost: string, ingestionHost: string): { dir: string; config: string } {
  const dir = tempDir();
  return { dir, config: sb.writeConfig(dir, { test: { host: ingestionHost, apiHost, apiKey: PROJECT_KEY, key: 'owner-all' } }) };
}

function expectKeyNotIn(text: string): void {
  expect(text).not.toContain(sb.key('owner-all'));
  expect(text).not.toContain(PROJECT_KEY);
}

describe('the personal key stays on the API host', () => {
  it('is never sent to the ingestion host, and the project key never to the API', async () => {
    const ingestion = await serve(startTrap());
    const relay = await serve(startRelay(sb.sandbox.url, {}));
    const { config } = configFor(relay.url, ingestion.url);
    for (const args of [
      ['projects', 'list'],
      ['group-types', 'list'],
      ['groups', 'list', '--group-type-index', '0', '--all'],
      ['groups', 'find', '--group-type-index', '0', '--key', 'org-1'],
      ['exports', 'create', '--insight', '1', '--format', 'text/csv', '--wait', '--poll-interval-ms', '0'],
      ['exports', 'list', '--all'],
    ]) {
      const result = await sb.cli(config, [...args, '--project', 'test']);
      expect(result.code, args.join(' ')).toBe(0);
      expectKeyNotIn(result.stdout + result.stderr);
    }
    expect(ingestion.requests).toEqual([]);
    expect(relay.requests.length).toBeGreaterThan(6);
    for (const seen of relay.requests) {
      expect(seen.url.startsWith('/api/')).toBe(true);
      expect(seen.headers.authorization).toBe(`Bearer ${sb.key('owner-all')}`);
      expect(JSON.stringify(seen)).not.toContain(PROJECT_KEY);
    }
  });

  it('a next link to another port (here the ingestion host) stops the walk before any request', async () => {
    const trap = await serve(startTrap());
    const relay = await serve(startRelay(sb.sandbox.url, { rewriteNext: (next) => next.replace(/^http:\/\/[^/]+/, trap.url) }));
    const { config } = configFor(relay.url, trap.url);
    const result = await sb.cli(config, ['groups', 'list', '--group-type-index', '0', '--all', '--project', 'test']);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(`error: refusing to send the personal API key to ${trap.url}/api/projects/1/groups/`);
    expect(result.stderr).toContain(`${trap.url} is not the configured API host ${relay.url}`);
    expectKeyNotIn(result.stderr);
    expect(trap.requests).toEqual([]);
    expect(relay.requests).toHaveLength(1);
  });

  it('a next link to a non-API path on the same host is not followed either', async () => {
    const trap = await serve(startTrap());
    const relay = await serve(startRelay(sb.sandbox.url, { rewriteNext: (next) => next.replace('/api/projects/1/groups/', '/batch/') }));
    const { config } = configFor(relay.url, trap.url);
    const result = await sb.cli(config, ['groups', 'list', '--group-type-index', '0', '--all', '--project', 'test']);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain('/batch/ is outside /api/');
    expect(relay.requests.map((r) => r.url.split('?')[0])).toEqual(['/api/projects/1/groups/']);
  });

  it('a content redirect to storage is followed without the key', async () => {
    const storage = await serve(startTrap(PNG_BYTES));
    const relay = await serve(startRelay(sb.sandbox.url, { redirectContentTo: `${storage.url}/bucket/chart.png?signature=abc` }));
    const { dir, config } = configFor(relay.url, storage.url);
    const result = await sb.cli(config, ['exports', 'download', '1', '-o', 'chart.png', '--project', 'test']);
    expect(result.code).toBe(0);
    expect(readFileSync(join(dir, 'chart.png'))).toEqual(PNG_BYTES);
    expect(storage.requests).toHaveLength(1);
    expect(storage.requests[0]!.url).toBe('/bucket/chart.png?signature=abc');
    expect(storage.requests[0]!.headers.authorization).toBeUndefined();
    expect(JSON.stringify(storage.requests[0])).not.toContain('phx_');
  });
});

describe('hostile hosts: links, redirects and storage answers', () => {
  it('a next link written with an upper-case scheme is the same host: the walk goes on', async () => {
    const relay = await serve(startRelay(sb.sandbox.url, { rewriteNext: (next) => next.replace(/^http:/, 'HTTP:') }));
    const { config } = configFor(relay.url, relay.url);
    const result = await sb.cli(config, ['groups', 'list', '--group-type-index', '0', '--all', '--json', '--project', 'test']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(150);
    expect(relay.requests).toHaveLength(2);
  });

  it('an upper-case next link to another port is still refused, naming both hosts', async () => {
    const trap = await serve(startTrap());
    const relay = await serve(startRelay(sb.sandbox.url, { rewriteNext: (next) => next.replace(/^http:\/\/[^/]+/, trap.url.replace('http:', 'HTTP:')) }));
    const { config } = configFor(relay.url, trap.url);
    const result = await sb.cli(config, ['groups', 'list', '--group-type-index', '0', '--all', '--project', 'test']);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(`${trap.url} is not the configured API host ${relay.url}`);
    expect(trap.requests).toEqual([]);
  });

  it('an API answer that redirects without a Location is a clear error naming the host', async () => {
    const api = await serve(startTrap('', 302));
    const { config } = configFor(api.url, api.url);
    const result = await sb.cli(config, ['projects', 'list', '--project', 'test']);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(`error: the API answered GET /api/projects/ with a redirect (302) that has no Location, answered by ${new URL(api.url).host}`);
    expect(api.requests).toHaveLength(1);
  });

  it('a content redirect without a Location is a clear error naming the host', async () => {
    const relay = await serve(startRelay(sb.sandbox.url, { redirectContentTo: null }));
    const { config } = configFor(relay.url, relay.url);
    const result = await sb.cli(config, ['exports', 'download', '1', '-o', 'chart.png', '--project', 'test']);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(`error: ${new URL(relay.url).host} redirected the download of export 1 (302) without a Location`);
  });

  it.each([401, 403, 404])("a %i from the storage host is the storage host's, not the API's (exit 8), and it never saw the key", async (status) => {
    const storage = await serve(startTrap('<Error><Code>AccessDenied</Code></Error>', status));
    const relay = await serve(startRelay(sb.sandbox.url, { redirectContentTo: `${storage.url}/bucket/chart.png?signature=old` }));
    const { dir, config } = configFor(relay.url, relay.url);
    const result = await sb.cli(config, ['exports', 'download', '1', '-o', 'chart.png', '--project', 'test']);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(`error: the storage host ${new URL(storage.url).host} refused the download of export 1 (${status}); the signed link may have expired`);
    expect(result.stderr).not.toContain('personal API key');
    expect(storage.requests[0]!.headers.authorization).toBeUndefined();
    expectKeyNotIn(result.stderr);
    expect(existsSync(join(dir, 'chart.png'))).toBe(false);
  });
});
