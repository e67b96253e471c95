/**
 * Sends one chunk to `{host}/batch/` through the project's HTTP client: the body built from
 * the chunk's events, gzip-compressed once per chunk (retries reuse it).
 */
import { promisify } from 'node:util';
import { gzip, gzipSync } from 'node:zlib';
import type { HttpClient } from '../http/http-client.js';
import type { HttpOutcome } from '../http/http-outcome.js';
import { batchBody } from './event-encoding.js';
import type { Chunk } from './chunker.js';

const gzipAsync = promisify(gzip);
/**
 * zlib's fastest level: about half the CPU of the default (6) for about 15% more bytes (JSON of
 * similar events shrinks about sixfold instead of sevenfold); compression was the client's
 * largest single cost.
 */
export const GZIP_LEVEL = 1;
const MIN_GZIP_OUTPUT_BYTES = 16 * 1024;

export interface SendResult {
  outcome: HttpOutcome;
  /** Bytes put on the wire (after compression). */
  wireBytes: number;
}

export type SendChunk = (chunk: Chunk, signal: AbortSignal) => Promise<SendResult>;

export interface BatchSender {
  /** Starts building (and compressing) a chunk's body, so it is ready when a request slot frees. */
  prepare(chunk: Chunk): void;
  send: SendChunk;
}

export interface BatchSenderOptions {
  client: HttpClient;
  /** Ingestion base URL without trailing slash. */
  host: string;
  apiKey: string;
  gzip: boolean;
  timeoutMs: number;
  userAgent: string;
}

/** The gzip body of `json` as `compress` makes it, on the calling thread (the chunk reader's). */
export function compressSync(json: Buffer): Buffer {
  return gzipSync(json, { level: GZIP_LEVEL, chunkSize: Math.max(MIN_GZIP_OUTPUT_BYTES, Math.ceil(json.length / 4)) });
}

function compress(json: Buffer): Promise<Buffer> {
  // zlib hands its output back to the main thread piece by piece; a piece of a quarter of the
  // input holds the whole output of JSON like ours, so one hand-back per chunk.
  return gzipAsync(json, { level: GZIP_LEVEL, chunkSize: Math.max(MIN_GZIP_OUTPUT_BYTES, Math.ceil(json.length / 4)) });
}

export function createBatchSender(options: BatchSenderOptions): BatchSender {
  const url = `${options.host}/batch/`;
  const bodies = new WeakMap<Chunk, Promise<Buffer>>();
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': options.userAgent };
  if (options.gzip) headers['content-encoding'] = 'gzip';

  const bodyOf = (chunk: Chunk): Promise<Buffer> => {
    let body = bodies.get(chunk);
    if (body === undefined && options.gzip && chunk.gzipBody !== undefined) {
      body = Promise.resolve(chunk.gzipBody);
      bodies.set(chunk, body);
    }
    if (body === undefined) {
      const json = batchBody(options.apiKey, chunk.eventsJson);
      body = options.gzip ? compress(json) : Promise.resolve(json);
      bodies.set(chunk, body);
    }
    return body;
  };

  return {
    prepare: (chunk) => void bodyOf(chunk).catch(() => undefined), // a failure surfaces in send
    async send(chunk, signal) {
      const body = await bodyOf(chunk);
      const outcome = await options.client.send({ method: 'POST', url, headers, body, timeoutMs: options.timeoutMs, signal });
      return { outcome, wireBytes: body.length };
    },
  };
}
