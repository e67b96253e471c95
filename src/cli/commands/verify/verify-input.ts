/** verify's options as the use case's input, and its argument parsers. Pure. */
import { InvalidArgumentError } from 'commander';
import { UsageError } from '../../../errors.js';
import { parseDurationMs } from '../../../util/parse-duration.js';
import type { VerifyInput } from '../../../verify/verify-project.js';
import { parseDay } from '../../../verify/utc-day.js';
import type { ConfigOptions, StagingOptions } from '../../options/common-options.js';

export interface VerifyOptions extends StagingOptions, ConfigOptions {
  project: string;
  since?: string;
  until?: string;
  byEvent?: boolean;
  wait?: number;
  resendMissing?: boolean;
  html?: string;
  quiet?: boolean;
  json?: boolean;
}

/** A UTC day written YYYY-MM-DD. */
export function dayOption(name: string): (value: string) => string {
  return (value) => {
    const day = parseDay(value);
    if (day === undefined) throw new InvalidArgumentError(`${name} takes a day as YYYY-MM-DD (UTC), e.g. 2024-01-31`);
    return day;
  };
}

/** A duration such as 10m, 90s, 1h30m. */
export function waitOption(value: string): number {
  const ms = parseDurationMs(value);
  if (ms === undefined) throw new InvalidArgumentError('--wait takes a duration such as 10m, 90s or 1h30m');
  return ms;
}

export function toVerifyInput(options: VerifyOptions): VerifyInput {
  if (options.since !== undefined && options.until !== undefined && options.since > options.until) {
    throw new UsageError(`--since ${options.since} is after --until ${options.until}`);
  }
  return {
    staging: options.staging,
    config: options.config,
    project: options.project,
    since: options.since,
    until: options.until,
    byEvent: options.byEvent === true,
    waitMs: options.wait ?? 0,
    resendMissing: options.resendMissing === true,
  };
}
