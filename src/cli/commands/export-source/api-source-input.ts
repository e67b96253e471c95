/**
 * export-source's options for a source API (`--from mixpanel-api | amplitude-api`) as the API
 * staging use case's input. The staging rules (map, time zone, groups) are those of the file
 * format the API answers in, made by the same code. Pure but for reading the mapping file.
 */
import { UsageError } from '../../../errors.js';
import { apiRequestSettings } from '../../../source-apis/api-options.js';
import { API_SOURCES, isApiSource, type ApiSourceName } from '../../../source-apis/api-sources.js';
import type { StageApiInput } from '../../../stage-sources/stage-api.js';
import { stagingShape, type ExportSourceOptions } from './export-source-input.js';

export async function toStageApiInput(files: string[], options: ExportSourceOptions, nowMs: number): Promise<StageApiInput> {
  if (!isApiSource(options.from)) throw new UsageError(`--from ${options.from}: not a source API`);
  const api: ApiSourceName = options.from;
  if (files.length > 0) {
    throw new UsageError(`--from ${api} fetches from ${API_SOURCES[api].vendor}'s export API: give --start and --end, not files (${files[0]})`, [
      `For files ${API_SOURCES[api].vendor} exported, use --from ${API_SOURCES[api].format}.`,
    ]);
  }
  if (options.project !== undefined && api !== 'posthog-api') throw new UsageError(`--project applies to --from posthog-api only`);
  // PostHog located these events when they first arrived: their $geoip_* travel as they are, never computed again (--no-geoip, always).
  const geoip = api === 'posthog-api' ? false : options.geoip;
  const shape = await stagingShape({ ...options, geoip, from: API_SOURCES[api].format }, nowMs);
  return {
    api,
    project: options.project,
    people: options.people,
    ingestion: shape.ingestion,
    staging: options.staging,
    config: options.config,
    start: options.start,
    end: options.end,
    nowMs,
    readerOptions: shape.readerOptions,
    rules: shape.rules,
    recordedOptions: shape.recordedOptions,
    passes: shape.passes,
    workers: options.workers,
    maxRequestsPerHour: options.maxRequestsPerHour,
    concurrency: options.apiConcurrency,
    hoursPerRequest: options.hoursPerRequest,
    ...apiRequestSettings(options),
  };
}
