/**
 * A small ingestion host on 127.0.0.1 that misbehaves as told: HTML pages with a 200, empty
 * bodies, 400s that are not PostHog's, size limits, answers that never come. It decodes each
 * `/batch/` body (gzip or not) and lets the test decide the answer from the batch.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterEach } from 'vitest';

export interface BatchSeen {
  /** Decompressed body size, in bytes. */
  bytes: number;
  events: Array<{ uuid: string; distinct_id: string; event: string }>;
}

export interface Answer {
  status: number;
  contentType?: string;
  body?: string;
}

/** An answer, or 'hang' to never answer (the connection stays open until the host closes). */
export type AnswerFor = (batch: BatchSeen) => Answer | 'hang';

export interface HostileHost {
  url: string;
  /** Requests received, answered or not. */
  requests: number;
  /** Uuids of events in batches answered with PostHog's acknowledgement. */
  acknowledged: Set<string>;
  /** Requests answered, by status. */
  answers: Record<number, number>;
  /** Resolves once `n` requests arrived (at once if they did). */
  requestsSeen(n: number): Promise<void>;
  /** Answers requests left hanging (with `answer`) and stops hanging from now on. */
  release(answer?: Answer): void;
  close(): Promise<void>;
}

export const ACK: Answer = { status: 200, contentType: 'application/json', body: '{"status":"Ok"}' };
export const LOGIN_PAGE = '<!DOCTYPE html>\n<html><head><title>Sign in - Corporate Proxy</title></head><body><form>Please log in</form></body></html>';

async function readBatch(req: IncomingMessage): Promise<BatchSeen> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const raw = Buffer.concat(parts);
  const text = (/gzip/.test(String(req.headers['content-encoding'] ?? '')) ? gunzipSync(raw) : raw).toString('utf8');
  const parsed = JSON.parse(text) as { batch?: BatchSeen['events'] };
  return { bytes: Buffer.byteLength(text), events: parsed.batch ?? [] };
}

export async function startHostileHost(answerFor: AnswerFor): Promise<HostileHost> {
  const hanging: ServerResponse[] = [];
  let hangs = true;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const send = (res: ServerResponse, answer: Answer): void => {
    res.writeHead(answer.status, answer.contentType ? { 'content-type': answer.contentType } : {});
    res.end(answer.body ?? '');
  };
  const host: HostileHost = {
    url: '',
    requests: 0,
    acknowledged: new Set(),
    answers: {},
    requestsSeen: (n) => (host.requests >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    release(answer = ACK) {
      hangs = false;
      for (const res of hanging.splice(0)) send(res, answer);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer(async (req, res) => {
    host.requests++;
    const batch = await readBatch(req);
    for (const waiter of waiters.filter((w) => host.requests >= w.n)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    const answer = answerFor(batch);
    if (answer === 'hang' && hangs) {
      hanging.push(res);
      return;
    }
    const given = answer === 'hang' ? ACK : answer;
    host.answers[given.status] = (host.answers[given.status] ?? 0) + 1;
    if (given.status >= 200 && given.status < 300 && given.body === ACK.body) for (const e of batch.events) host.acknowledged.add(e.uuid);
    send(res, given);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return host;
}

/** Starts hostile hosts for a test; each is closed after the test. */
export function useHostileHosts(): (answer: AnswerFor) => Promise<HostileHost> {
  const hosts: HostileHost[] = [];
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.close();
  });
  return async (answer) => {
    const host = await startHostileHost(answer);
    hosts.push(host);
    return host;
  };
}
