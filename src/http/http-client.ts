/**
 * The one module that imports undici. Every request the tool makes (ingestion batches, the
 * management API) goes through `httpRequest`, which never throws for an HTTP status: a network
 * failure or timeout comes back as a value too, for the caller's pure classifier to judge.
 */
import { Agent, request } from 'undici';
import type { HttpOutcome } from './http-outcome.js';

export type { HttpOutcome } from './http-outcome.js';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Whole-request bound (connect, send, wait, read), in ms. Default 60000. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface HttpClientOptions {
  /** Most sockets kept open per origin. Default 16. */
  connections?: number;
  /** Idle socket lifetime, in ms. Default 30000. */
  keepAliveMs?: number;
}

export interface HttpClient {
  send(req: HttpRequest): Promise<HttpOutcome>;
  close(): Promise<void>;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const agent = new Agent({
    connections: options.connections ?? 16,
    keepAliveTimeout: options.keepAliveMs ?? 30_000,
  });
  return {
    async send(req) {
      const timeoutMs = req.timeoutMs ?? 60_000;
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
      try {
        const response = await request(req.url, {
          method: req.method,
          headers: req.headers,
          body: req.body,
          signal,
          dispatcher: agent,
          // Redirects are not followed: a key must never be replayed to a host we did not choose.
          maxRedirections: 0,
        } as Parameters<typeof request>[1]);
        const body = Buffer.from(await response.body.arrayBuffer());
        return { type: 'response', status: response.statusCode, headers: flattenHeaders(response.headers), body };
      } catch (error) {
        if (req.signal?.aborted) return { type: 'aborted' };
        if (timeout.aborted) return { type: 'timeout', afterMs: timeoutMs };
        const err = error as NodeJS.ErrnoException;
        return { type: 'network-error', code: err.code ?? err.name ?? 'ERROR', message: err.message };
      }
    },
    close: () => agent.close(),
  };
}
