/** The delivery flags import and resume share, and reading back the ones the user typed. */
import type { Command } from 'commander';
import {
  DEFAULT_CHUNK_EVENTS,
  DEFAULT_CONCURRENCY,
  DEFAULT_INTERRUPT_GRACE_MS,
  DEFAULT_REMOTE_MAX_RATE,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_RETRY_POLICY,
} from '../../delivery/delivery-settings.js';
import { KEYS, type GivenSettings } from '../../import/import-settings.js';
import { configOption, integerOption, jsonOption, quietOption, stagingOption } from './common-options.js';

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
