/**
 * The delivery options `import` and `resume` share: declared once, read back as only what the
 * user typed (so resume can reuse a run's own options), and resolved over the defaults.
 */
import { defaultSettings, type DeliverySettings } from '../delivery/delivery-settings.js';
import { UsageError } from '../errors.js';

/** Options as typed on the command line; recorded with the run (numbers and booleans only). */
export interface GivenSettings {
  chunkEvents?: number;
  chunkBytes?: number;
  concurrency?: number;
  maxRate?: number;
  requestTimeoutMs?: number;
  interruptGraceMs?: number;
  gzip?: boolean;
  retryInitialMs?: number;
  retryMaxDelayMs?: number;
  retryBudgetMs?: number;
}

export const KEYS = [
  'chunkEvents',
  'chunkBytes',
  'concurrency',
  'maxRate',
  'requestTimeoutMs',
  'interruptGraceMs',
  'gzip',
  'retryInitialMs',
  'retryMaxDelayMs',
  'retryBudgetMs',
] as const satisfies ReadonlyArray<keyof GivenSettings>;

/** Bodies stay far from PostHog's 20 MB limit whatever is asked. */
export const MAX_CHUNK_BYTES = 16 * 1024 * 1024;

/** Recorded settings from a staging file, keeping only known keys of the right type. */
export function recordedSettings(value: Record<string, unknown>): GivenSettings {
  const out: Record<string, unknown> = {};
  for (const key of KEYS) {
    const v = value[key];
    if (key === 'gzip' ? typeof v === 'boolean' : typeof v === 'number') out[key] = v;
  }
  return out as GivenSettings;
}

export function resolveSettings(host: string, given: GivenSettings): DeliverySettings {
  if (given.chunkBytes !== undefined && given.chunkBytes > MAX_CHUNK_BYTES) {
    throw new UsageError(`--chunk-bytes ${given.chunkBytes}: at most ${MAX_CHUNK_BYTES} (PostHog refuses bodies over 20 MB)`);
  }
  const d = defaultSettings(host);
  return {
    chunkEvents: given.chunkEvents ?? d.chunkEvents,
    chunkBytes: given.chunkBytes ?? d.chunkBytes,
    concurrency: given.concurrency ?? d.concurrency,
    maxRatePerSec: given.maxRate ?? d.maxRatePerSec,
    requestTimeoutMs: given.requestTimeoutMs ?? d.requestTimeoutMs,
    interruptGraceMs: given.interruptGraceMs ?? d.interruptGraceMs,
    gzip: given.gzip ?? d.gzip,
    retry: {
      initialDelayMs: given.retryInitialMs ?? d.retry.initialDelayMs,
      maxDelayMs: given.retryMaxDelayMs ?? d.retry.maxDelayMs,
      maxTotalWaitMs: given.retryBudgetMs ?? d.retry.maxTotalWaitMs,
    },
  };
}
