/**
 * Real loopback servers for the key-isolation tests: a trap that records whatever reaches it,
 * and a relay in front of the sandbox that can rewrite page links or redirect content.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface LoopbackServer {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

async function listen(server: Server, requests: Recorded[]): Promise<LoopbackServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: import('node:http').IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

/** Records every request and answers `status` (200 by default) with `body` (an empty page by default). */
export function startTrap(body: Buffer | string = JSON.stringify({ next: null, previous: null, results: [] }), status = 200): Promise<LoopbackServer> {
  const requests: Recorded[] = [];
  const server = createServer(async (req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: (await readBody(req)).toString() });
    res.writeHead(status, { 'content-type': Buffer.isBuffer(body) ? 'image/png' : 'application/json' });
    res.end(body);
  });
  return listen(server, requests);
}

/** PostHog's answer for a path it does not route. */
export const ENDPOINT_NOT_FOUND_BODY = JSON.stringify({ type: 'invalid_request', code: 'not_found', detail: 'Endpoint not found.', attr: null });

export interface RelayRules {
  /** Replaces each `next` link of a JSON page with what this returns. */
  rewriteNext?: (next: string) => string;
  /** Answers export content requests with a redirect to this URL instead of forwarding them (null: a redirect without Location). */
  redirectContentTo?: string | null;
  /** Answers 404 "Endpoint not found." for the paths this accepts, as an instance without them. */
  unrouted?: (path: string) => boolean;
  /** Called with each request before it is answered (e.g. to act once a client is polling). */
  onRequest?: (seen: Recorded) => void;
}

/** Forwards to `upstream`, as the same host from the client's view, applying `rules`. */
export function startRelay(upstream: string, rules: RelayRules): Promise<LoopbackServer> {
  const requests: Recorded[] = [];
  const target = new URL(upstream);
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: body.toString() };
    requests.push(seen);
    rules.onRequest?.(seen);
    if (rules.unrouted?.((req.url ?? '').split('?')[0]!)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(ENDPOINT_NOT_FOUND_BODY);
      return;
    }
    if (rules.redirectContentTo !== undefined && /\/content\/(\?|$)/.test(req.url ?? '')) {
      res.writeHead(302, rules.redirectContentTo === null ? {} : { location: rules.redirectContentTo });
      res.end();
      return;
    }
    const forward = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, async (up) => {
      let answer = await readBody(up);
      const headers = { ...up.headers };
      if (rules.rewriteNext && (headers['content-type'] ?? '').includes('json')) {
        const json = JSON.parse(answer.toString()) as { next?: string | null };
        if (typeof json.next === 'string') json.next = rules.rewriteNext(json.next);
        answer = Buffer.from(JSON.stringify(json));
        delete headers['content-length'];
      }
      res.writeHead(up.statusCode ?? 502, headers);
      res.end(answer);
    });
    forward.end(body);
  });
  return listen(server, requests);
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** Records every request and answers each as `answer` says: a stand-in for a wrong host, a proxy, a skewed clock. */
export function startResponder(answer: (request: Recorded) => Answer): Promise<LoopbackServer> {
  const requests: Recorded[] = [];
  const server = createServer(async (req, res) => {
    const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: (await readBody(req)).toString() };
    requests.push(recorded);
    const reply = answer(recorded);
    res.writeHead(reply.status, reply.headers ?? {});
    res.end(reply.body ?? '');
  });
  return listen(server, requests);
}
