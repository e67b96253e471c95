/** Capture over real HTTP: what PostHog refuses, the sizes it counts, what it drops after a 200. */
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpOutcome } from '../../src/http/http-client.js';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import { compressToLz64 } from '../helpers/lz-string-compress.js';
import { sandboxTokens, storedEvents, useSandbox } from '../helpers/sandbox.js';

const client = createHttpClient();
afterAll(() => client.close());

async function post(sandbox: RunningSandbox, path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const outcome: HttpOutcome = await client.send({ method: 'POST', url: `${sandbox.url}${path}`, body, headers: { 'content-type': 'application/json', ...headers } });
  if (outcome.type !== 'response') throw new Error(`no response: ${JSON.stringify(outcome)}`);
  return { status: outcome.status, body: JSON.parse(outcome.body.toString()) as Record<string, unknown> };
}

async function stats(sandbox: RunningSandbox): Promise<Record<string, unknown>> {
  const outcome = await client.send({ method: 'GET', url: `${sandbox.url}/_sandbox/stats` });
  if (outcome.type !== 'response') throw new Error('no stats');
  return JSON.parse(outcome.body.toString()) as Record<string, unknown>;
}

const event = (over: Record<string, unknown> = {}) => ({ event: 'pageview', distinct_id: 'u1', timestamp: '2024-05-01T10:00:00.000Z', properties: { a: 1 }, ...over });

describe('capture refuses what PostHog refuses: the whole request, 400, nothing stored', () => {
  const sandboxAt = useSandbox();
  const batch = (token: string, extra: string) => `{"api_key":"${token}","batch":[{"event":"ok","distinct_id":"d"},{"event":"e","distinct_id":"d",${extra}}]}`;

  it.each([
    ['timestamp as epoch ms', '"timestamp":1714557600000', '`timestamp` is not a string'],
    ['offset not an integer', '"offset":2.5', '`offset` is not an integer'],
    ['properties null', '"properties":null', '`properties` is not an object'],
    ['$set not an object', '"$set":"plan"', '`$set` is not an object'],
    ['uuid with spaces', '"uuid":" 0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"', '`uuid` is not a valid uuid'],
    ['event twice', '"event":"f"', 'duplicate field `event`'],
    ['distinct_id with $distinct_id', '"$distinct_id":"x"', 'duplicate field `distinct_id`'],
    ['129 levels of nesting', `"properties":{"deep":${'['.repeat(129)}${']'.repeat(129)}}`, 'recursion limit exceeded'],
    ['a lone surrogate', '"properties":{"s":"\\ud800"}', 'lone leading surrogate'],
    ['a number out of range', '"properties":{"n":1e400}', 'number out of range'],
  ])('%s', async (_name, extra, error) => {
    const sandbox = await sandboxAt();
    const res = await post(sandbox, '/batch/', batch(sandboxTokens(sandbox).test, extra));
    expect(res).toMatchObject({ status: 400, body: { status: 400, code: 'invalid_payload' } });
    expect(res.body.error).toContain(error);
    expect(storedEvents(sandbox, 1)).toHaveLength(0);
  });

  it.each([
    ['sent_at as a number', (t: string) => ({ api_key: t, sent_at: 1714557600000, batch: [event()] }), 'invalid_payload'],
    ['historical_migration "true"', (t: string) => ({ api_key: t, historical_migration: 'true', batch: [event()] }), 'invalid_payload'],
    ['api_key with token', (t: string) => `{"api_key":"${t}","token":"${t}","batch":[{"event":"e","distinct_id":"d"}]}`, 'invalid_payload'],
    ['an empty batch', (t: string) => ({ api_key: t, batch: [] }), 'empty_batch'],
    ['$cookieless_mode not a boolean', (t: string) => ({ api_key: t, batch: [event(), event({ properties: { $cookieless_mode: 1 } })] }), 'invalid_cookieless_mode'],
    ['200,000 levels of nesting (400, not a crash)', () => '['.repeat(200_000) + ']'.repeat(200_000), 'invalid_payload'],
    ['a byte order mark', (t: string) => `\uFEFF${JSON.stringify({ api_key: t, batch: [event()] })}`, 'invalid_payload'],
  ])('%s', async (_name, body, code) => {
    const sandbox = await sandboxAt();
    const made = body(sandboxTokens(sandbox).test);
    const res = await post(sandbox, '/batch/', typeof made === 'string' ? made : JSON.stringify(made));
    expect(res).toMatchObject({ status: 400, body: { code } });
    expect(storedEvents(sandbox, 1)).toHaveLength(0);
  });
});

describe('sizes, counted as the bytes arrive', () => {
  const sandboxAt = useSandbox();

  it('answers 413 before the rest of a large body is sent, and closes the connection', async () => {
    const sandbox = await sandboxAt({ capture: { maxReceivedBytes: 1_000_000 } });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const total = 200;
    // The server closes the connection as it answers; a client still writing may see the reset
    // before it has read the answer (no status to check then): that attempt is made again.
    const attempt = (): Promise<{ status: number; written: number } | 'reset'> =>
      new Promise((resolve, reject) => {
        let written = 0;
        const req = httpRequest(`${sandbox.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
          resolve({ status: res.statusCode ?? 0, written });
          res.resume();
          req.destroy();
        });
        req.on('error', (error) => (written < total ? resolve('reset') : reject(error)));
        const writeMore = (): void => {
          while (written < total && req.write(chunk)) written++;
          if (written < total) req.once('drain', () => (written++, writeMore()));
          else req.end();
        };
        writeMore();
      });
    let outcome = await attempt();
    for (let again = 0; outcome === 'reset' && again < 5; again++) outcome = await attempt();
    expect(outcome).not.toBe('reset');
    const answered = outcome as { status: number; written: number };
    expect(answered.status).toBe(413);
    expect(answered.written).toBeLessThan(200);
  });

  it('stops inflating a gzip bomb at the decompressed limit', async () => {
    const sandbox = await sandboxAt({ capture: { maxBodyBytes: 1_000_000 } });
    const bomb = gzipSync(Buffer.alloc(50_000_000, 0x20));
    expect(bomb.length).toBeLessThan(100_000);
    expect(await post(sandbox, '/batch/', bomb)).toMatchObject({ status: 413, body: { code: 'payload_too_large' } });
  });

  it('answers 413 for an event over --max-event-bytes after storing the events before it', async () => {
    const sandbox = await sandboxAt({ capture: { maxEventBytes: 3000 } });
    const batch = [event({ event: 'first' }), event({ event: 'big', properties: { pad: 'x'.repeat(4000) } }), event({ event: 'after' })];
    const res = await post(sandbox, '/batch/', JSON.stringify({ api_key: sandboxTokens(sandbox).test, batch }));
    expect(res).toMatchObject({ status: 413, body: { code: 'event_too_big' } });
    expect(storedEvents(sandbox, 1).map((e) => e.event)).toEqual(['first']);
  });
});

describe('what PostHog drops after answering 200', () => {
  const sandboxAt = useSandbox();
  const body = (token: string, batch: unknown[]) => JSON.stringify({ api_key: token, batch });

  it.each([
    ['refuse (the default): 401', undefined, 401, 0],
    ['accept-and-drop: 200, dropped', 'accept-and-drop' as const, 200, 2],
  ])('an unknown token, %s', async (_name, unknownTokens, status, dropped) => {
    const sandbox = await sandboxAt({ capture: { faults: { unknownTokens } } });
    expect((await post(sandbox, '/batch/', body('phc_nobody000000000000', [event(), event()]))).status).toBe(status);
    expect(storedEvents(sandbox, 1)).toHaveLength(0);
    expect(await stats(sandbox)).toMatchObject({ dropped: { unknownToken: dropped } });
  });

  it('over quota: 200 {"status":"Ok"}, nothing stored', async () => {
    const sandbox = await sandboxAt({ capture: { faults: { overQuota: true } } });
    expect(await post(sandbox, '/batch/', body(sandboxTokens(sandbox).test, [event(), event()]))).toMatchObject({ status: 200, body: { status: 'Ok' } });
    expect(storedEvents(sandbox, 1)).toHaveLength(0);
    expect(await stats(sandbox)).toMatchObject({ dropped: { overQuota: 2 }, eventsByProject: {} });
  });

  it('loses the asked share of accepted events after the 200, seeded, and counts them', async () => {
    const sandbox = await sandboxAt({ capture: { faults: { loseAfterAccept: 0.3 }, random: seededRandom(7) } });
    const batch = Array.from({ length: 100 }, (_, i) => event({ uuid: `0190aaaa-0000-7000-8000-${String(i).padStart(12, '0')}` }));
    expect((await post(sandbox, '/batch/', body(sandboxTokens(sandbox).test, batch))).status).toBe(200);
    const lost = ((await stats(sandbox)).dropped as { lostAfterAccept: number }).lostAfterAccept;
    expect(lost).toBeGreaterThan(15);
    expect(lost).toBeLessThan(45);
    expect(storedEvents(sandbox, 1)).toHaveLength(100 - lost);
  });

  it('drops $performance_event events silently', async () => {
    const sandbox = await sandboxAt();
    expect((await post(sandbox, '/batch/', body(sandboxTokens(sandbox).test, [event({ event: '$performance_event' }), event()]))).status).toBe(200);
    expect(storedEvents(sandbox, 1).map((e) => e.event)).toEqual(['pageview']);
    expect(await stats(sandbox)).toMatchObject({ eventsByProject: { 1: 2 }, dropped: { performanceEvent: 1 } });
  });
});

describe('the transport forms of PostHog SDKs', () => {
  const sandboxAt = useSandbox();
  const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

  it.each([
    ['form data= as JSON', (json: string) => `data=${encodeURIComponent(json)}`, FORM, '/e/'],
    ['form data= in base64', (json: string) => `data=${encodeURIComponent(Buffer.from(json).toString('base64'))}`, FORM, '/e/'],
    ['form data= in lz64', (json: string) => `data=${encodeURIComponent(compressToLz64(json))}&compression=lz64`, FORM, '/e/'],
    ['the whole body in base64', (json: string) => Buffer.from(json).toString('base64'), {}, '/batch/'],
    ['gzip', (json: string) => gzipSync(json), { 'content-encoding': 'gzip' }, '/i/v0/e/'],
  ])('%s', async (_name, encode, headers, path) => {
    const sandbox = await sandboxAt();
    const json = JSON.stringify([event({ token: sandboxTokens(sandbox).test, properties: { text: 'été + more' } })]);
    expect((await post(sandbox, path, encode(json), headers)).status).toBe(200);
    expect(storedEvents(sandbox, 1).map((e) => JSON.parse(e.properties).text)).toEqual(['été + more']);
  });
});
