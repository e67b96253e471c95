/**
 * The HTTP client's streamed GET against real loopback servers: a 2xx body handed over piece by
 * piece, error answers read whole (capped), a body cut mid-way or silent too long as outcomes,
 * an abort as an outcome, and the caller's own failure thrown.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient, type StreamedAnswer } from '../../src/http/http-client.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = createHttpClient();
  closers.push(async () => {
    await client.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function stream(url: string, options: { idleTimeoutMs?: number; signal?: AbortSignal } = {}): Promise<StreamedAnswer> {
  const client = createHttpClient();
  closers.push(() => client.close());
  return client.stream({ url, headers: { authorization: 'Basic x' }, ...options });
}

async function collect(answer: StreamedAnswer): Promise<{ end: unknown; body: string }> {
  if (answer.type !== 'body') throw new Error(`settled: ${JSON.stringify(answer.outcome)}`);
  const parts: Buffer[] = [];
  const end = await answer.consume((chunk) => void parts.push(chunk));
  return { end, body: Buffer.concat(parts).toString() };
}

describe('HttpClient.stream', () => {
  it('hands a 2xx body over as it arrives', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('{"a":1}\n');
      setTimeout(() => res.end('{"a":2}\n'), 10);
    });
    const answer = await stream(url);
    expect(answer).toMatchObject({ type: 'body', status: 200, headers: { 'content-type': 'text/plain' } });
    expect(await collect(answer)).toEqual({ end: { type: 'complete', bytes: 16 }, body: '{"a":1}\n{"a":2}\n' });
  });

  it('reads an error answer whole, keeping at most 64 KiB of it', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(429, { 'retry-after': '7' });
      res.end('x'.repeat(100_000));
    });
    const answer = await stream(url);
    expect(answer.type).toBe('settled');
    const outcome = (answer as Extract<StreamedAnswer, { type: 'settled' }>).outcome;
    expect(outcome).toMatchObject({ type: 'response', status: 429, headers: { 'retry-after': '7' } });
    expect((outcome as { body: Buffer }).body).toHaveLength(64 * 1024);
  });

  it('ends a body cut mid-way as a network error', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.write('half of the day');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    const { end, body } = await collect(await stream(url));
    expect(end).toMatchObject({ type: 'network-error' });
    expect(body).toBe('half of the day');
  });

  it('ends a body silent for longer than the idle time as a timeout', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.write('first');
    });
    expect((await collect(await stream(url, { idleTimeoutMs: 100 }))).end).toEqual({ type: 'timeout', afterMs: 100 });
  });

  it("answers an abort as aborted, and throws what the caller's own handling throws", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.write('first');
    });
    const controller = new AbortController();
    const answer = await stream(url, { signal: controller.signal });
    if (answer.type !== 'body') throw new Error('expected a body');
    const end = answer.consume(() => controller.abort());
    expect(await end).toEqual({ type: 'aborted' });

    const again = await stream(url);
    if (again.type !== 'body') throw new Error('expected a body');
    await expect(again.consume(() => Promise.reject(Object.assign(new Error('disk full'), { code: 'ENOSPC' })))).rejects.toThrow('disk full');
  });

  it('answers a refused connection as a network error', async () => {
    const url = await serve((_req, res) => res.end());
    const port = new URL(url).port;
    for (const close of closers.splice(0)) await close();
    const answer = await stream(`http://127.0.0.1:${port}/`);
    expect(answer).toMatchObject({ type: 'settled', outcome: { type: 'network-error', code: 'ECONNREFUSED' } });
  });
});
