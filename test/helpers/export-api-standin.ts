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
  | { type: 'answer'; status: number; headers?: Record<string, string>; body?: string | Buffer }
  /** Half the real body, then the connection is destroyed. */
  | { type: 'drop-mid-body' }
  /** Half the real body, then silence until `release()` (or the client gives up). */
  | { type: 'stall' }
  /** The real answer, not gzipped, with neither a length nor chunks (it ends when the connection does), cut in the middle of a line. */
  | { type: 'unframed-cut' }
  /** The real answer, not gzipped, whole but with a Content-Length larger than it; then the connection is closed. */
  | { type: 'long-length' }
  /** The real answer, whole, with `Connection: close`: the connection is closed once it is sent. */
  | { type: 'close-after' }
  /** The real answer with its bytes changed by `mangle` (a damaged archive). */
  | { type: 'mangle'; mangle(body: Buffer): Buffer };

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
  /** Resolves once a stalled answer's first half has been handed to the connection (at once if one was). */
  stalled(): Promise<void>;
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
  /** A second endpoint taking a form body (Mixpanel's Engage API); its faults are queued under its key too. */
  form?: { path: string; key(form: Record<string, string>): string; answer(form: Record<string, string>): RealAnswer };
}

function send(res: ServerResponse, answer: RealAnswer): void {
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
  res.end(answer.body);
}

export async function startStandin(expectedAuth: string, handler: StandinHandler): Promise<StandinServer> {
  const requests: LoggedRequest[] = [];
  const faults = new Map<string, Fault[]>();
  const stalled = new Set<ServerResponse>();
  const stallWaiters: Array<() => void> = [];
  let stallsSent = 0;
  const takeFault = (key: string): Fault | undefined => faults.get(key)?.shift() ?? faults.get('*')?.shift();
  /** A form request: logged with its form as its query; injected answers apply, the other faults do not. */
  const onForm = (req: IncomingMessage, res: ServerResponse, form: NonNullable<StandinHandler['form']>, path: string) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const query = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const authorized = req.headers.authorization === expectedAuth;
      requests.push({ path, query, authorized, acceptEncoding: String(req.headers['accept-encoding'] ?? '') });
      if (!authorized) return send(res, handler.unauthorized());
      const fault = takeFault(form.key(query));
      if (fault?.type === 'answer') return send(res, { status: fault.status, headers: fault.headers ?? {}, body: Buffer.from(fault.body ?? '') });
      send(res, form.answer(query));
    });
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (handler.form !== undefined && req.method === 'POST' && url.pathname === handler.form.path) return onForm(req, res, handler.form, url.pathname);
    const query = Object.fromEntries(url.searchParams);
    const authorized = req.headers.authorization === expectedAuth;
    const acceptEncoding = String(req.headers['accept-encoding'] ?? '');
    requests.push({ path: url.pathname, query, authorized, acceptEncoding });
    if (url.pathname !== handler.path) return send(res, { status: 404, headers: { 'content-type': 'text/plain' }, body: Buffer.from('Not Found') });
    if (!authorized) return send(res, handler.unauthorized());
    const fault = takeFault(handler.key(query));
    if (fault?.type === 'answer') return send(res, { status: fault.status, headers: fault.headers ?? {}, body: Buffer.from(fault.body ?? '') });
    const plain = fault?.type === 'unframed-cut' || fault?.type === 'long-length';
    const answer = handler.answer(query, plain ? '' : acceptEncoding);
    if (fault === undefined || answer.status !== 200) return send(res, answer);
    if (fault.type === 'mangle') return send(res, { ...answer, body: fault.mangle(answer.body) });
    if (fault.type !== 'drop-mid-body' && fault.type !== 'stall') return sendRaw(res, fault.type, answer);
    // Chunked (no length), as a streaming export answers: the client only learns of the cut when the connection ends.
    res.writeHead(200, answer.headers);
    if (fault.type === 'stall') stalled.add(res);
    res.write(answer.body.subarray(0, Math.floor(answer.body.length / 2)), () => {
      if (fault.type === 'drop-mid-body') return res.socket?.destroy();
      stallsSent++;
      for (const waiter of stallWaiters.splice(0)) waiter();
    });
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
    stalled: () => new Promise<void>((resolve) => (stallsSent > 0 ? resolve() : stallWaiters.push(resolve))),
    close: () =>
      new Promise((resolve) => {
        for (const res of stalled) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Where a body of lines is cut in the middle of one: half-way, moved off a line's end. */
function midLine(body: Buffer): number {
  let at = Math.floor(body.length / 2);
  while (at > 1 && (body[at - 1] === 0x0a || body[at] === 0x0a)) at--;
  return at;
}

/** Writes an answer on the socket itself, framed as HTTP/1.1 servers must not (or merely may) frame it, then closes the connection. */
function sendRaw(res: ServerResponse, type: 'unframed-cut' | 'long-length' | 'close-after', answer: RealAnswer): void {
  const socket = res.socket!;
  const body = type === 'unframed-cut' ? answer.body.subarray(0, midLine(answer.body)) : answer.body;
  const length = type === 'unframed-cut' ? [] : [`content-length: ${type === 'long-length' ? body.length + 4096 : body.length}`];
  const head = ['HTTP/1.1 200 OK', ...Object.entries(answer.headers).map(([k, v]) => `${k}: ${v}`), ...length, 'connection: close', '', ''].join('\r\n');
  socket.write(head);
  socket.end(body);
}

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export function jsonAnswer(status: number, value: unknown): RealAnswer {
  return { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) };
}
