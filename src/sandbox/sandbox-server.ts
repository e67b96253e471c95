/**
 * The local PostHog-compatible server: node:http on 127.0.0.1 only, its own SQLite store,
 * routes from the capture and management areas. Used by `migrate sandbox` and by the tests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors.js';
import { createApiRoutes, type ApiOptions } from './api/api-routes.js';
import { seedManagementData } from './api/management-seed.js';
import { createCaptureRoutes, type CaptureControl, type CaptureOptions } from './capture/capture-routes.js';
import { findRoute, json, type Route, type SandboxRequest, type SandboxResponse } from './router.js';
import { SandboxStore } from './sandbox-store.js';

export interface SandboxOptions {
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number;
  /** SQLite file of the sandbox; ':memory:' for a throwaway one. Default ':memory:'. */
  dbPath?: string;
  now?: () => Date;
  /** Capture side: faults, body limit, count-only mode, an observer. */
  capture?: CaptureOptions;
  /** Management side: explicit members on or off, export render time and content behaviour. */
  api?: ApiOptions;
}

export interface RunningSandbox {
  url: string;
  port: number;
  store: SandboxStore;
  capture: CaptureControl;
  close(): Promise<void>;
}

function remoteAddressOf(req: IncomingMessage): string | undefined {
  const address = req.socket.remoteAddress;
  return address?.startsWith('::ffff:') ? address.slice(7) : address;
}

function toRequest(req: IncomingMessage, url: URL): SandboxRequest {
  let read: Promise<Buffer> | undefined;
  return {
    method: req.method ?? 'GET',
    url,
    headers: req.headers,
    stream: req,
    remoteAddress: remoteAddressOf(req),
    body() {
      read ??= (async () => {
        const parts: Buffer[] = [];
        for await (const chunk of req) parts.push(chunk as Buffer);
        return Buffer.concat(parts);
      })();
      return read;
    },
  };
}

function send(res: ServerResponse, response: SandboxResponse): void {
  if (response.drop) {
    res.socket?.destroy();
    return;
  }
  res.writeHead(response.status, response.headers ?? {});
  res.end(response.body);
}

/** Binds the port before anything else, so a port in use leaves no store file behind. */
async function listen(server: Server, port: number): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${port} on 127.0.0.1 is in use`, ['Pick another with --port <n>, or --port 0 for a free one.']);
    if (code === 'EACCES') throw new UsageError(`port ${port} on 127.0.0.1 is not allowed for this user`, ['Pick another with --port <n>, or --port 0 for a free one.']);
    throw error;
  }
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => {
    if (handle) handle(req, res);
    else res.writeHead(503).end();
  });
  await listen(server, options.port ?? 0);
  let store: SandboxStore;
  try {
    store = SandboxStore.open(options.dbPath ?? ':memory:');
    seedManagementData(store, options.now);
  } catch (error) {
    server.close();
    throw error;
  }
  const now = options.now ?? (() => new Date());
  const capture = createCaptureRoutes(store, options.capture);
  const routes: readonly Route[] = [...capture.routes, ...createApiRoutes(options.api)];
  handle = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const found = findRoute(routes, req.method ?? 'GET', url.pathname);
    if (!found) {
      // PostHog answers any unrouted /api/ path (a retired endpoint too) with "Endpoint not found.", before authentication.
      const detail = url.pathname.startsWith('/api/') ? 'Endpoint not found.' : 'Not found.';
      send(res, json(404, { type: 'invalid_request', code: 'not_found', detail, attr: null }));
      return;
    }
    Promise.resolve(found.route.handler(toRequest(req, url), { store, now, params: found.params }))
      .then((response) => send(res, response))
      .catch((error: unknown) => send(res, json(500, { type: 'server_error', code: 'error', detail: String((error as Error)?.message ?? error), attr: null })));
  };
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    store,
    capture: capture.control,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          store.close();
          resolve();
        });
      }),
  };
}
