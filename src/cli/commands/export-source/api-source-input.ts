/**
 * export-source's options for a source API (`--from mixpanel-api | amplitude-api`) as the API
 * staging use case's input. The staging rules (map, time zone, groups) are those of the file
 * format the API answers in, made by the same code. Pure but for reading the mapping file.
 */
import { UsageError } from '../../../errors.js';
import type { RetryPolicy } from '../../../http/retry-policy.js';
import { API_SOURCES, isApiSource, type ApiSourceName } from '../../../source-apis/api-sources.js';
import type { StageApiInput } from '../../../stage-sources/stage-api.js';
import { stagingShape, type ExportSourceOptions } from './export-source-input.js';

/**
 * Source API retries: as delivery's, but patient. The budget is wall time from a range's first
 * request, so it holds the downloads themselves (a day of Mixpanel can take many minutes) and
 * the waits for the rate limit as well as the backoffs; a range is worth waiting for.
 */
export const API_RETRY_DEFAULTS: RetryPolicy = { initialDelayMs: 1000, maxDelayMs: 60_000, maxTotalWaitMs: 2 * 3_600_000 };
/** Longest silence of a source API's answer, in ms: an export may think for minutes before its first byte. */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

export async function toStageApiInput(files: string[], options: ExportSourceOptions, nowMs: number): Promise<StageApiInput> {
  if (!isApiSource(options.from)) throw new UsageError(`--from ${options.from}: not a source API`);
  const api: ApiSourceName = options.from;
  if (files.length > 0) {
    throw new UsageError(`--from ${api} fetches from ${API_SOURCES[api].vendor}'s export API: give --start and --end, not files (${files[0]})`, [
      `For files ${API_SOURCES[api].vendor} exported, use --from ${API_SOURCES[api].format}.`,
    ]);
  }
  const shape = await stagingShape({ ...options, from: API_SOURCES[api].format }, nowMs);
  return {
    api,
    staging: options.staging,
    config: options.config,
    start: options.start,
    end: options.end,
    nowMs,
    readerOptions: shape.readerOptions,
    rules: shape.rules,
    ingestion: shape.ingestion,
    recordedOptions: shape.recordedOptions,
    passes: shape.passes,
    workers: options.workers,
    maxRequestsPerHour: options.maxRequestsPerHour,
    concurrency: options.apiConcurrency,
    hoursPerRequest: options.hoursPerRequest,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    retryPolicy: {
      initialDelayMs: options.retryInitialMs ?? API_RETRY_DEFAULTS.initialDelayMs,
      maxDelayMs: options.retryMaxDelayMs ?? API_RETRY_DEFAULTS.maxDelayMs,
      maxTotalWaitMs: options.retryBudgetMs ?? API_RETRY_DEFAULTS.maxTotalWaitMs,
    },
  };
}
