/** The sandbox's capture endpoints over real HTTP on 127.0.0.1. */
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpOutcome } from '../../src/http/http-client.js';
import { listSandboxProjects } from '../../src/sandbox/sandbox-projects.js';
import { SandboxStore } from '../../src/sandbox/sandbox-store.js';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { sandboxTokens, storedEvents, useSandbox } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp-dir.js';

const client = createHttpClient();
afterAll(() => client.close());

function post(sandbox: RunningSandbox, path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<HttpOutcome> {
  return client.send({ method: 'POST', url: `${sandbox.url}${path}`, body, headers: { 'content-type': 'application/json', ...headers } });
}

function answer(outcome: HttpOutcome): { status: number; body: unknown; headers: Record<string, string> } {
  if (outcome.type !== 'response') throw new Error(`no response: ${JSON.stringify(outcome)}`);
  return { status: outcome.status, body: JSON.parse(outcome.body.toString()), headers: outcome.headers };
}

const event = (over: Record<string, unknown> = {}) => ({ event: 'pageview', distinct_id: 'u1', timestamp: '2024-05-01T10:00:00.000Z', properties: { a: 1 }, ...over });

describe('sandbox capture', () => {
  const sandboxAt = useSandbox();
  const tempDir = useTempDir();

  it('accepts a batch: 200 {"status":"Ok"}, stored with the historical flag', async () => {
    const sandbox = await sandboxAt();
    const { test } = sandboxTokens(sandbox);
    const res = answer(await post(sandbox, '/batch/', JSON.stringify({ api_key: test, historical_migration: true, batch: [event({ uuid: '0190aaaa-0000-7000-8000-000000000001' })] })));
    expect(res).toMatchObject({ status: 200, body: { status: 'Ok' } });
    const [stored, ...rest] = storedEvents(sandbox, 1);
    expect(rest).toEqual([]);
    expect({ ...stored, properties: undefined }).toEqual({
      team_id: 1,
      uuid: '0190aaaa-0000-7000-8000-000000000001',
      event: 'pageview',
      distinct_id: 'u1',
      timestamp: '2024-05-01T10:00:00.000Z',
      properties: undefined,
      historical_migration: 1,
      endpoint: '/batch/',
    });
    // The event's own properties, then what ingestion adds: the sender's address and its location.
    expect(JSON.parse(stored!.properties)).toMatchObject({ a: 1, $ip: '127.0.0.1', $geoip_city_name: 'Sandbox City' });
  });

  it('shows what ingestion stored through its debug routes', async () => {
    const sandbox = await sandboxAt();
    const session = '01890000-0000-7abc-8def-000000000001';
    const body = { api_key: sandboxTokens(sandbox).test, batch: [event({ properties: { $session_id: session, $set: { plan: 'pro' }, $geoip_disable: true } })] };
    expect(answer(await post(sandbox, '/batch/', JSON.stringify(body))).status).toBe(200);
    const get = async (path: string) => answer(await client.send({ method: 'GET', url: `${sandbox.url}${path}` })).body;
    expect(await get('/_sandbox/events?project=1')).toMatchObject([{ event: 'pageview', personProperties: { plan: 'pro' } }]);
    expect(await get('/_sandbox/sessions')).toMatchObject([{ sessionId: session, eventCount: 1 }]);
    expect(await get('/_sandbox/person?distinct_id=u1')).toMatchObject({ distinctIds: ['u1'], properties: { plan: 'pro' } });
    expect(await get('/_sandbox/warnings')).toEqual([]);
  });

  it.each([
    ['/e/', (t: string) => event({ api_key: t })],
    ['/capture/', (t: string) => event({ token: t })],
    ['/i/v0/e/', (t: string) => [event({ $token: t }), event({ properties: { token: t } })]],
    ['/batch', (t: string) => ({ api_key: t, batch: [event()] })],
  ])('%s takes its shapes and records no historical flag outside a batch', async (path, body) => {
    const sandbox = await sandboxAt();
    const res = answer(await post(sandbox, path, JSON.stringify(body(sandboxTokens(sandbox).prod))));
    expect(res.status).toBe(200);
    const stored = storedEvents(sandbox, 2);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.every((e) => e.historical_migration === 0 && e.endpoint === path)).toBe(true);
  });

  it.each([
    ['gzip magic bytes, no header', {}, ''],
    ['Content-Encoding: gzip', { 'content-encoding': 'gzip' }, ''],
    ['?compression=gzip-js', {}, '?compression=gzip-js'],
  ])('reads gzip: %s', async (_name, headers, query) => {
    const sandbox = await sandboxAt();
    const body = gzipSync(JSON.stringify({ api_key: sandboxTokens(sandbox).test, batch: [event()] }));
    expect(answer(await post(sandbox, `/batch/${query}`, body, headers)).status).toBe(200);
    expect(storedEvents(sandbox, 1)).toHaveLength(1);
  });

  it('applies the size limit to the decompressed body (413)', async () => {
    const sandbox = await sandboxAt({ capture: { maxBodyBytes: 10_000 } });
    const big = JSON.stringify({ api_key: sandboxTokens(sandbox).test, batch: [event({ properties: { pad: 'x'.repeat(20_000) } })] });
    const compressed = gzipSync(big);
    expect(compressed.length).toBeLessThan(10_000);
    expect(answer(await post(sandbox, '/batch/', compressed))).toMatchObject({ status: 413, body: { status: 413, code: 'payload_too_large' } });
    expect(answer(await post(sandbox, '/batch/', big)).status).toBe(413);
    expect(storedEvents(sandbox, 1)).toHaveLength(0);
  });

  it.each([
    ['invalid JSON', () => '{"api_key":', 400, 'invalid_payload'],
    ['broken gzip', () => Buffer.from([0x1f, 0x8b, 0x08, 0, 1, 2, 3]), 400, 'invalid_payload'],
    ['one event without distinct_id', (t: string) => JSON.stringify({ api_key: t, batch: [event(), event({ distinct_id: undefined })] }), 400, 'missing_distinct_id'],
    ['no api_key', () => JSON.stringify({ batch: [event()] }), 401, 'no_token'],
    ['unknown token', () => JSON.stringify({ api_key: 'phc_unknown0000000000', batch: [event()] }), 401, 'invalid_token'],
    ['personal key', () => JSON.stringify({ api_key: 'phx_personal000000000', batch: [event()] }), 401, 'invalid_token'],
  ])('refuses %s with a JSON error and stores nothing', async (_name, body, status, code) => {
    const sandbox = await sandboxAt();
    const res = answer(await post(sandbox, '/batch/', body(sandboxTokens(sandbox).test)));
    expect(res).toMatchObject({ status, body: { status, code } });
    expect(typeof (res.body as { error: string }).error).toBe('string');
    expect(storedEvents(sandbox, 1)).toHaveLength(0);
  });

  it('corrects clock skew from sent_at against its own clock', async () => {
    const now = new Date('2025-06-01T12:00:00.000Z');
    const sandbox = await sandboxAt({ now: () => now });
    const body = { api_key: sandboxTokens(sandbox).test, sent_at: '2025-06-01T11:00:00.000Z', batch: [event(), event({ distinct_id: 'u2', properties: { $ignore_sent_at: true } })] };
    expect(answer(await post(sandbox, '/batch/', JSON.stringify(body))).status).toBe(200);
    expect(storedEvents(sandbox, 1).map((e) => e.timestamp)).toEqual(['2024-05-01T11:00:00.000Z', '2024-05-01T10:00:00.000Z']);
  });

  it('count-only mode validates and counts but stores nothing', async () => {
    const sandbox = await sandboxAt({ capture: { countOnly: true } });
    const { test } = sandboxTokens(sandbox);
    expect(answer(await post(sandbox, '/batch/', JSON.stringify({ api_key: test, historical_migration: true, batch: [event(), event()] }))).status).toBe(200);
    expect(answer(await post(sandbox, '/batch/', JSON.stringify({ api_key: test, batch: [event({ event: '' })] }))).status).toBe(400);
    expect(storedEvents(sandbox, 1)).toHaveLength(0);
    const stats = answer(await client.send({ method: 'GET', url: `${sandbox.url}/_sandbox/stats` }));
    expect(stats.body).toMatchObject({ requests: 2, eventsByProject: { 1: 2 }, historicalEvents: 2, answers: { 200: 1, 400: 1 } });
  });

  it.each([
    ['500', { error500: 1 }, 500, undefined],
    ['503', { error503: 1 }, 503, undefined],
    ['429', { error429: 1 }, 429, undefined],
    ['429 with Retry-After', { error429RetryAfter: 1, retryAfterSeconds: 9 }, 429, '9'],
  ])('injects %s', async (_name, faults, status, retryAfter) => {
    const sandbox = await sandboxAt({ capture: { faults } });
    const res = answer(await post(sandbox, '/batch/', JSON.stringify({ api_key: sandboxTokens(sandbox).test, batch: [event()] })));
    expect(res.status).toBe(status);
    expect(res.headers['retry-after']).toBe(retryAfter);
    expect(storedEvents(sandbox, 1)).toHaveLength(0);
  });

  it.each([
    ['a dropped connection stores nothing', { drop: 1 }, 0],
    ['a lost answer stores the events', { loseAnswer: 1 }, 1],
  ])('%s', async (_name, faults, stored) => {
    const sandbox = await sandboxAt({ capture: { faults } });
    const outcome = await post(sandbox, '/batch/', JSON.stringify({ api_key: sandboxTokens(sandbox).test, batch: [event()] }));
    expect(outcome.type).toBe('network-error');
    expect(storedEvents(sandbox, 1)).toHaveLength(stored);
  });

  it('answers slowly when asked, through the injected sleep', async () => {
    const waits: number[] = [];
    const sandbox = await sandboxAt({ capture: { faults: { slow: 1, slowMs: 1500 }, sleep: async (ms) => void waits.push(ms) } });
    expect(answer(await post(sandbox, '/batch/', JSON.stringify({ api_key: sandboxTokens(sandbox).test, batch: [event()] }))).status).toBe(200);
    expect(waits).toEqual([1500]);
  });

  it('seeds a test and a production project once, with tokens kept across restarts', () => {
    const file = join(tempDir(), 'sandbox.db');
    const first = SandboxStore.open(file);
    const projects = listSandboxProjects(first);
    first.close();
    const again = SandboxStore.open(file);
    expect(listSandboxProjects(again)).toEqual(projects);
    again.close();
    expect(projects.map((p) => [p.id, p.role])).toEqual([
      [1, 'test'],
      [2, 'production'],
    ]);
    expect(projects[0]!.apiToken).toMatch(/^phc_[A-Za-z0-9]{43}$/);
    expect(projects[0]!.apiToken).not.toBe(projects[1]!.apiToken);
  });
});
