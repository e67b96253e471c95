/**
 * What the two export API stand-ins share: a real node:http server on 127.0.0.1 that logs
 * every request, checks Basic credentials, and answers either with an injected fault (a
 * status with headers and body, a connection dropped half-way through the body, a body that
 * stalls half-way until released) or with the real answer the stand-in builds.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoggedRequest {
  path: string;
  query: Record<string, string>;
  /** The Basic credentials matched. */
  authorized: boolean;
  acceptEncoding: string;
}

/** A fault for the next request of a range (or of any range, under '*'). */
export type Fault =
  | { type: 'answer'; status: number; headers?: Record<string, string>; body?: string }
  /** Half the real body, then the connection is destroyed. */
  | { type: 'drop-mid-body' }
  /** Half the real body, then silence until `release()` (or the client gives up). */
  | { type: 'stall' };

export interface RealAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface StandinServer {
  url: string;
  requests: LoggedRequest[];
  /** Queues faults for the range `key` (the stand-in's own key of a request), or '*' for the next request whatever its range. */
  inject(key: string, ...faults: Fault[]): void;
  /** Forgets the faults not used yet. */
  clearFaults(): void;
  /** Ends every stalled answer (the client has usually gone). */
  release(): void;
  /** Resolves once a request for the range `key` has come (at once if one came already). */
  requested(key: string): Promise<void>;
  close(): Promise<void>;
}

export interface StandinHandler {
  /** The path the API serves. */
  path: string;
  /** The fault queue key of a request: its range. */
  key(query: Record<string, string>): string;
  answer(query: Record<string, string>, acceptEncoding: string): RealAnswer;
  /** The error answer for bad credentials. */
  unauthorized(): RealAnswer;
}

function send(res: ServerResponse, answer: RealAnswer): void {
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
  res.end(answer.body);
}

export async function startStandin(expectedAuth: string, handler: StandinHandler): Promise<StandinServer> {
  const requests: LoggedRequest[] = [];
  const faults = new Map<string, Fault[]>();
  const stalled = new Set<ServerResponse>();
  const keys = new Set<string>();
  const waiting = new Map<string, Array<() => void>>();
  const logKey = (key: string): void => {
    keys.add(key);
    for (const resolve of waiting.get(key) ?? []) resolve();
    waiting.delete(key);
  };
  const takeFault = (key: string): Fault | undefined => faults.get(key)?.shift() ?? faults.get('*')?.shift();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const query = Object.fromEntries(url.searchParams);
    const authorized = req.headers.authorization === expectedAuth;
    const acceptEncoding = String(req.headers['accept-encoding'] ?? '');
    requests.push({ path: url.pathname, query, authorized, acceptEncoding });
    if (url.pathname !== handler.path) return send(res, { status: 404, headers: { 'content-type': 'text/plain' }, body: Buffer.from('Not Found') });
    if (!authorized) return send(res, handler.unauthorized());
    logKey(handler.key(query));
    const fault = takeFault(handler.key(query));
    if (fault?.type === 'answer') return send(res, { status: fault.status, headers: fault.headers ?? {}, body: Buffer.from(fault.body ?? '') });
    const answer = handler.answer(query, acceptEncoding);
    if (fault === undefined || answer.status !== 200) return send(res, answer);
    // Chunked (no length), as a streaming export answers: the client only learns of the cut when the connection ends.
    res.writeHead(200, answer.headers);
    const half = answer.body.subarray(0, Math.floor(answer.body.length / 2));
    // Dropped once the half has left for the client (no timer), or stalled until released.
    if (fault.type === 'drop-mid-body') res.write(half, () => res.socket?.destroy());
    else {
      res.write(half);
      stalled.add(res);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    inject(key, ...more) {
      faults.set(key, [...(faults.get(key) ?? []), ...more]);
    },
    clearFaults() {
      faults.clear();
    },
    release() {
      for (const res of stalled) res.destroy();
      stalled.clear();
    },
    requested: (key) => (keys.has(key) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(key, [...(waiting.get(key) ?? []), resolve]))),
    close: () =>
      new Promise((resolve) => {
        for (const res of stalled) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export function jsonAnswer(status: number, value: unknown): RealAnswer {
  return { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) };
}
