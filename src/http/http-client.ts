/**
 * The one module that imports undici. Every request the tool makes (ingestion batches, the
 * management API, the source APIs) goes through the client, which never throws for an HTTP
 * status: a network failure or timeout comes back as a value too, for the caller's pure
 * classifier to judge. `stream` hands a large answer's body over as it arrives (a day of
 * Mixpanel events can be gigabytes), bounded by an idle time rather than a total one.
 */
import type { Agent, request as undiciRequest } from 'undici';
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

export interface StreamRequest {
  url: string;
  headers?: Record<string, string>;
  /** Longest wait for the answer to start, then between two pieces of its body, in ms. Default 300000. */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
}

/** How a streamed body ended: all of it received, or the outcome that cut it short. */
export type BodyEnd = { type: 'complete'; bytes: number } | Exclude<HttpOutcome, { type: 'response' }>;

/**
 * A streamed answer. A 2xx answer's body is consumed piece by piece; any other answer is read
 * whole (error answers are small; at most 64 KiB of one is kept) and comes as an outcome.
 */
export type StreamedAnswer =
  | { type: 'body'; status: number; headers: Record<string, string>; consume(onChunk: (chunk: Buffer) => Promise<void> | void): Promise<BodyEnd> }
  | { type: 'settled'; outcome: HttpOutcome };

export interface HttpClient {
  send(req: HttpRequest): Promise<HttpOutcome>;
  /** A GET whose 2xx body is read as it arrives. */
  stream(req: StreamRequest): Promise<StreamedAnswer>;
  close(): Promise<void>;
}

/** Most bytes of an error answer kept for its message. */
const ERROR_BODY_BYTES = 64 * 1024;
const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

type Undici = typeof import('undici');
let undici: Promise<Undici> | undefined;
/**
 * undici is loaded at the first request, not with this module: it adds about 28 MB to a
 * process's resident memory, and many runs (export-source of files) never make a request.
 */
const loadUndici = (): Promise<Undici> => (undici ??= import('undici'));

/** A failure of the request or of its body as an outcome: interrupted, silent too long, or cut. */
function failureOutcome(error: unknown, signal: AbortSignal | undefined, idleTimeoutMs: number): Exclude<HttpOutcome, { type: 'response' }> {
  if (signal?.aborted) return { type: 'aborted' };
  const err = error as NodeJS.ErrnoException;
  if (err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT') return { type: 'timeout', afterMs: idleTimeoutMs };
  return { type: 'network-error', code: err.code ?? err.name ?? 'ERROR', message: err.message };
}

async function readCapped(body: AsyncIterable<Buffer>, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    if (length < maxBytes) parts.push(chunk.subarray(0, maxBytes - length));
    length += chunk.length;
  }
  return Buffer.concat(parts);
}

/** Hands the body over piece by piece; the body's own failures end it as values, `onChunk`'s are thrown. */
async function consumeBody(body: AsyncIterable<Buffer>, expectedBytes: number | undefined, onChunk: (chunk: Buffer) => Promise<void> | void, fail: (error: unknown) => BodyEnd): Promise<BodyEnd> {
  let bytes = 0;
  const iterator = body[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Buffer>;
    try {
      next = await iterator.next();
    } catch (error) {
      return fail(error);
    }
    if (next.done) break;
    bytes += next.value.length;
    try {
      await onChunk(next.value);
    } catch (error) {
      await iterator.return?.();
      throw error;
    }
  }
  if (expectedBytes !== undefined && bytes !== expectedBytes) {
    return { type: 'network-error', code: 'SHORT_BODY', message: `the body ended after ${bytes} of ${expectedBytes} bytes` };
  }
  return { type: 'complete', bytes };
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  let agent: Agent | undefined;
  let closed = false;
  const connect = async (): Promise<{ agent: Agent; request: typeof undiciRequest }> => {
    const { Agent: AgentClass, request } = await loadUndici();
    if (agent === undefined) {
      agent = new AgentClass({ connections: options.connections ?? 16, keepAliveTimeout: options.keepAliveMs ?? 30_000 });
      // A request after close() fails as it did with the Agent made up front: a network error, no socket opened.
      if (closed) await agent.close();
    }
    return { agent, request };
  };
  return {
    async send(req) {
      const { agent, request } = await connect();
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
    async stream(req) {
      const idleTimeoutMs = req.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
      const fail = (error: unknown): Exclude<HttpOutcome, { type: 'response' }> => failureOutcome(error, req.signal, idleTimeoutMs);
      const { agent, request } = await connect();
      let response: Awaited<ReturnType<typeof request>>;
      try {
        response = await request(req.url, {
          method: 'GET',
          headers: req.headers,
          signal: req.signal,
          dispatcher: agent,
          headersTimeout: idleTimeoutMs,
          bodyTimeout: idleTimeoutMs,
          maxRedirections: 0,
        } as Parameters<typeof request>[1]);
      } catch (error) {
        return { type: 'settled', outcome: fail(error) };
      }
      const headers = flattenHeaders(response.headers);
      const status = response.statusCode;
      if (status < 200 || status >= 300) {
        try {
          return { type: 'settled', outcome: { type: 'response', status, headers, body: await readCapped(response.body, ERROR_BODY_BYTES) } };
        } catch (error) {
          return { type: 'settled', outcome: fail(error) };
        }
      }
      const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
      return { type: 'body', status, headers, consume: (onChunk) => consumeBody(response.body, Number.isFinite(length) ? length : undefined, onChunk, fail) };
    },
    close: async () => {
      closed = true;
      await agent?.close();
    },
  };
}
