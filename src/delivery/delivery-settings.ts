/**
 * How a delivery run sends: chunk limits, concurrency, rate, retries, time bounds. Defaults are
 * documented in the README ("Delivery defaults"); every one can be changed on the command line.
 */
import { isLoopbackHost } from '../config/hosts.js';
import type { RetryPolicy } from '../http/retry-policy.js';

/**
 * Most events per chunk. Official clients send 100; larger chunks cut the request count
 * tenfold, and the historical pipeline takes large batches well.
 */
export const DEFAULT_CHUNK_EVENTS = 1000;
/**
 * Most bytes of uncompressed body per chunk: 2 MiB, well under the 20 MB body limit and
 * under the 5 MiB official clients cut at, so a proxy with a smaller limit is unlikely to bite.
 */
export const DEFAULT_CHUNK_BYTES = 2 * 1024 * 1024;
/** Chunks in flight at once. */
export const DEFAULT_CONCURRENCY = 4;
/**
 * Events per second to a non-loopback host. PostHog asks historical imports to stay below
 * "a few thousand events per second across all workers"; 2,000 keeps well inside that.
 */
export const DEFAULT_REMOTE_MAX_RATE = 2000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** After Ctrl-C, how long in-flight chunks may take to finish before they are abandoned. */
export const DEFAULT_INTERRUPT_GRACE_MS = 10_000;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  maxTotalWaitMs: 5 * 60_000,
};

export interface DeliverySettings {
  /** Most events per chunk. Default 1000. */
  chunkEvents: number;
  /** Most uncompressed body bytes per chunk. Default 2 MiB. */
  chunkBytes: number;
  /** Chunks in flight at once (person and group updates always go one at a time). Default 4. */
  concurrency: number;
  /** Events per second across all chunks; 0 = no limit. Default: 2000 remote, 0 loopback. */
  maxRatePerSec: number;
  /** Bound for one request (connect, send, answer), in ms. Default 60000. */
  requestTimeoutMs: number;
  /** After an interrupt, how long in-flight chunks may finish, in ms. Default 10000. */
  interruptGraceMs: number;
  /** gzip the body (`Content-Encoding: gzip`). Default true. */
  gzip: boolean;
  retry: RetryPolicy;
}

/** The default max rate for a host: PostHog's guidance for real servers, none on loopback. */
export function defaultMaxRate(host: string): number {
  return isLoopbackHost(new URL(host).hostname) ? 0 : DEFAULT_REMOTE_MAX_RATE;
}

export function defaultSettings(host: string): DeliverySettings {
  return {
    chunkEvents: DEFAULT_CHUNK_EVENTS,
    chunkBytes: DEFAULT_CHUNK_BYTES,
    concurrency: DEFAULT_CONCURRENCY,
    maxRatePerSec: defaultMaxRate(host),
    requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
    interruptGraceMs: DEFAULT_INTERRUPT_GRACE_MS,
    gzip: true,
    retry: { ...DEFAULT_RETRY_POLICY },
  };
}
