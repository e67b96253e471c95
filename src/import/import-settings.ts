/**
 * The delivery options `import` and `resume` share: declared once, read back as only what the
 * user typed (so resume can reuse a run's own options), and resolved over the defaults.
 */
import type { Command } from 'commander';
import { configOption, integerOption, jsonOption, quietOption, stagingOption } from '../cli/common-options.js';
import {
  DEFAULT_CHUNK_EVENTS,
  DEFAULT_CONCURRENCY,
  DEFAULT_INTERRUPT_GRACE_MS,
  DEFAULT_REMOTE_MAX_RATE,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_RETRY_POLICY,
  defaultSettings,
  type DeliverySettings,
} from '../delivery/delivery-settings.js';
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

const KEYS = [
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

export function deliveryOptions(command: Command): Command {
  return command
    .option('--chunk-events <n>', `most events per request (default ${DEFAULT_CHUNK_EVENTS})`, integerOption('--chunk-events', 1))
    .option('--chunk-bytes <n>', 'most uncompressed body bytes per request (default 2 MiB, at most 16 MiB)', integerOption('--chunk-bytes', 1024))
    .option('--concurrency <n>', `requests in flight (default ${DEFAULT_CONCURRENCY})`, integerOption('--concurrency', 1))
    .option('--max-rate <events/s>', `events per second, 0 = no limit (default ${DEFAULT_REMOTE_MAX_RATE} to remote hosts, none on loopback)`, integerOption('--max-rate', 0))
    .option('--request-timeout-ms <ms>', `bound for one request (default ${DEFAULT_REQUEST_TIMEOUT_MS})`, integerOption('--request-timeout-ms', 1))
    .option('--interrupt-grace-ms <ms>', `after Ctrl-C, time for requests in flight (default ${DEFAULT_INTERRUPT_GRACE_MS})`, integerOption('--interrupt-grace-ms', 0))
    .option('--retry-initial-ms <ms>', `first retry delay before jitter (default ${DEFAULT_RETRY_POLICY.initialDelayMs})`, integerOption('--retry-initial-ms', 0))
    .option('--retry-max-delay-ms <ms>', `longest computed retry delay (default ${DEFAULT_RETRY_POLICY.maxDelayMs})`, integerOption('--retry-max-delay-ms', 0))
    .option('--retry-budget-ms <ms>', `most waiting per chunk before the run stops, resumable (default ${DEFAULT_RETRY_POLICY.maxTotalWaitMs})`, integerOption('--retry-budget-ms', 0))
    .option('--no-gzip', 'send bodies uncompressed');
}

/** Every option import and resume share: delivery tuning, staging file, config, quiet, json. */
export function importRunOptions(command: Command): Command {
  deliveryOptions(command);
  stagingOption(command);
  configOption(command);
  quietOption(command);
  return jsonOption(command);
}

/** The delivery options the user actually typed (not commander's defaults). */
export function givenSettings(command: Command): GivenSettings {
  const values = command.opts<Record<string, unknown>>();
  const given: Record<string, unknown> = {};
  for (const key of KEYS) {
    if (command.getOptionValueSource(key) === 'cli') given[key] = values[key];
  }
  return given as GivenSettings;
}

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
