/**
 * Sends one chunk to `{host}/batch/` through the project's HTTP client: the body built from
 * the chunk's events, gzip-compressed once per chunk (retries reuse it).
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { HttpClient } from '../http/http-client.js';
import type { HttpOutcome } from '../http/http-outcome.js';
import { batchBody } from './event-encoding.js';
import type { Chunk } from './chunker.js';

const gzipAsync = promisify(gzip);

export interface SendResult {
  outcome: HttpOutcome;
  /** Bytes put on the wire (after compression). */
  wireBytes: number;
}

export type SendChunk = (chunk: Chunk, signal: AbortSignal) => Promise<SendResult>;

export interface BatchSenderOptions {
  client: HttpClient;
  /** Ingestion base URL without trailing slash. */
  host: string;
  apiKey: string;
  gzip: boolean;
  timeoutMs: number;
  userAgent: string;
}

export function createBatchSender(options: BatchSenderOptions): SendChunk {
  const url = `${options.host}/batch/`;
  const bodies = new WeakMap<Chunk, Promise<Buffer>>();
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': options.userAgent };
  if (options.gzip) headers['content-encoding'] = 'gzip';

  const bodyOf = (chunk: Chunk): Promise<Buffer> => {
    let body = bodies.get(chunk);
    if (body === undefined) {
      const json = batchBody(options.apiKey, chunk.eventsJson);
      // Level 6 is zlib's default; JSON of similar events shrinks about tenfold.
      body = options.gzip ? gzipAsync(json, { level: 6 }) : Promise.resolve(json);
      bodies.set(chunk, body);
    }
    return body;
  };

  return async (chunk, signal) => {
    const body = await bodyOf(chunk);
    const outcome = await options.client.send({ method: 'POST', url, headers, body, timeoutMs: options.timeoutMs, signal });
    return { outcome, wireBytes: body.length };
  };
}
