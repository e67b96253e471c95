/**
 * The local PostHog-compatible server: node:http on 127.0.0.1 only, its own SQLite store,
 * routes from the capture and management areas. Used by `migrate sandbox` and by the tests.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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

function toRequest(req: IncomingMessage, url: URL): SandboxRequest {
  let read: Promise<Buffer> | undefined;
  return {
    method: req.method ?? 'GET',
    url,
    headers: req.headers,
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

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const store = SandboxStore.open(options.dbPath ?? ':memory:');
  seedManagementData(store, options.now);
  const now = options.now ?? (() => new Date());
  const capture = createCaptureRoutes(store, options.capture);
  const routes: readonly Route[] = [...capture.routes, ...createApiRoutes(options.api)];
  const server = createServer((req, res) => {
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
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
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
