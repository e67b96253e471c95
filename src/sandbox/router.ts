/**
 * The sandbox's routing: each area (capture, management API) contributes a list of routes;
 * a handler gets the request and answers with a plain value, never touching the socket.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { SandboxStore } from './sandbox-store.js';

export interface SandboxRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  /** The body as received (still compressed if it was); read at most once. */
  body(): Promise<Buffer>;
  /** The body as it arrives, for a handler that counts bytes as they come (use this or body()). */
  stream: Readable;
  /** The address of the machine that sent the request (IPv4 addresses without the `::ffff:` prefix). */
  remoteAddress: string | undefined;
}

export interface SandboxResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Destroy the connection instead of answering (fault injection: a dropped connection). */
  drop?: boolean;
}

export interface SandboxContext {
  store: SandboxStore;
  /** Injected clock, so tests control "now". */
  now: () => Date;
  /** The path's capture groups. */
  params: string[];
}

export type RouteHandler = (request: SandboxRequest, context: SandboxContext) => Promise<SandboxResponse> | SandboxResponse;

export interface Route {
  /** HTTP method, or '*' for any. */
  method: string;
  path: RegExp;
  handler: RouteHandler;
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): SandboxResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) };
}

export function findRoute(routes: readonly Route[], method: string, pathname: string): { route: Route; params: string[] } | undefined {
  for (const route of routes) {
    if (route.method !== '*' && route.method !== method) continue;
    const match = route.path.exec(pathname);
    if (match) return { route, params: match.slice(1) };
  }
  return undefined;
}
