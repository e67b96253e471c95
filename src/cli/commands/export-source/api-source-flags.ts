/** The flags of export-source that only the source APIs take, declared once: their options, and the refusal of them for files. */
import type { Command } from 'commander';
import { UsageError } from '../../../errors.js';
import { apiSourceNames } from '../../../source-apis/api-sources.js';
import { flagName } from '../../../delivery/delivery-options.js';
import { API_OPTIONS } from '../../../source-apis/api-options.js';
import { configOption, integerOption } from '../../options/common-options.js';
import { tableFlags } from '../../options/delivery-flags.js';

export interface ApiSourceOptions {
  start?: string;
  end?: string;
  config?: string;
  project?: string;
  people?: boolean;
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
  { key: 'project', flag: '--project' },
  { key: 'people', flag: '--people' },
  { key: 'maxRequestsPerHour', flag: '--max-requests-per-hour' },
  { key: 'apiConcurrency', flag: '--api-concurrency' },
  { key: 'hoursPerRequest', flag: '--hours-per-request' },
  ...API_OPTIONS.map((option) => ({ key: option.key, flag: flagName(option) })),
];

export function apiSourceFlags(command: Command): Command {
  configOption(command);
  command
    .option('--start <day|hour>', 'source APIs: first day (mixpanel-api, YYYY-MM-DD) or hour (amplitude-api, posthog-api: YYYY-MM-DDTHH, or a day) to fetch')
    .option('--project <name>', 'posthog-api: the project of the config to read (its apiHost, projectId and a personal API key with query:read)')
    .option('--people', "mixpanel-api: also the project's user profiles and the group profiles of sources.mixpanel.groupProfiles (Engage API), after the events")
    .option('--end <day|hour>', 'source APIs: last day or hour to fetch, inclusive (capped at what ended a day ago)')
    .option(
      '--max-requests-per-hour <n>',
      'source APIs: most requests an hour, 0 = no limit (default: mixpanel-api 60, amplitude-api none, posthog-api 2400; some PostHog projects allow 120)',
      integerOption('--max-requests-per-hour'),
    )
    .option('--api-concurrency <n>', 'source APIs: requests at once (default: mixpanel-api 3, at most 3; amplitude-api 1; posthog-api 1, at most 3)', integerOption('--api-concurrency', 1))
    .option('--hours-per-request <n>', 'amplitude-api, posthog-api: hours per request (default: sized from the data, starting with a day)', integerOption('--hours-per-request', 1));
  return tableFlags(command, API_OPTIONS);
}

/** Refuses the API flags for file formats (they would be silently ignored). */
export function refuseApiFlags(from: string, options: ApiSourceOptions): void {
  const given = API_FLAGS.find(({ key }) => options[key] !== undefined);
  if (given !== undefined) throw new UsageError(`${given.flag} applies to the source APIs only (--from ${apiSourceNames().join(', ')}), not --from ${from}`);
}
