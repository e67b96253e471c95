/** The flags of export-source that only the source APIs take, declared once: their options, and the refusal of them for files. */
import type { Command } from 'commander';
import { UsageError } from '../../../errors.js';
import { apiSourceNames } from '../../../source-apis/api-sources.js';
import { configOption, integerOption } from '../../options/common-options.js';

export interface ApiSourceOptions {
  start?: string;
  end?: string;
  config?: string;
  maxRequestsPerHour?: number;
  apiConcurrency?: number;
  hoursPerRequest?: number;
  idleTimeoutMs?: number;
  retryInitialMs?: number;
  retryMaxDelayMs?: number;
  retryBudgetMs?: number;
}

const API_FLAGS: ReadonlyArray<{ key: keyof ApiSourceOptions; flag: string }> = [
  { key: 'start', flag: '--start' },
  { key: 'end', flag: '--end' },
  { key: 'maxRequestsPerHour', flag: '--max-requests-per-hour' },
  { key: 'apiConcurrency', flag: '--api-concurrency' },
  { key: 'hoursPerRequest', flag: '--hours-per-request' },
  { key: 'idleTimeoutMs', flag: '--idle-timeout-ms' },
  { key: 'retryInitialMs', flag: '--retry-initial-ms' },
  { key: 'retryMaxDelayMs', flag: '--retry-max-delay-ms' },
  { key: 'retryBudgetMs', flag: '--retry-budget-ms' },
];

export function apiSourceFlags(command: Command): Command {
  configOption(command);
  return command
    .option('--start <day|hour>', 'source APIs: first day (mixpanel-api, YYYY-MM-DD) or hour (amplitude-api, YYYY-MM-DDTHH) to fetch')
    .option('--end <day|hour>', 'source APIs: last day or hour to fetch, inclusive (capped at what ended a day ago)')
    .option('--max-requests-per-hour <n>', 'source APIs: most requests an hour, 0 = no limit (default: mixpanel-api 60, amplitude-api none)', integerOption('--max-requests-per-hour'))
    .option('--api-concurrency <n>', 'source APIs: requests at once (default: mixpanel-api 3, at most 3; amplitude-api 1)', integerOption('--api-concurrency', 1))
    .option('--hours-per-request <n>', 'amplitude-api: hours per request (default: sized from the data, starting with a day)', integerOption('--hours-per-request', 1))
    .option('--idle-timeout-ms <ms>', 'source APIs: longest silence of an answer (default 300000)', integerOption('--idle-timeout-ms', 1))
    .option('--retry-initial-ms <ms>', 'source APIs: first retry delay (default 1000)', integerOption('--retry-initial-ms'))
    .option('--retry-max-delay-ms <ms>', 'source APIs: longest computed retry delay (default 60000)', integerOption('--retry-max-delay-ms'))
    .option('--retry-budget-ms <ms>', 'source APIs: most time from a range\'s first request to its last retry (default 7200000)', integerOption('--retry-budget-ms'));
}

/** Refuses the API flags for file formats (they would be silently ignored). */
export function refuseApiFlags(from: string, options: ApiSourceOptions): void {
  const given = API_FLAGS.find(({ key }) => options[key] !== undefined);
  if (given !== undefined) throw new UsageError(`${given.flag} applies to the source APIs only (--from ${apiSourceNames().join(', ')}), not --from ${from}`);
}
