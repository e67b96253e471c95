/**
 * The staging commands' time and re-staging flags: --min-time (alias --allow-before), the
 * earliest plausible time, --replace-changed and --reread. Declared once so export-source and identify-*
 * agree on their names, defaults and parsing.
 */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { DEFAULT_MIN_TIME_MS, formatBound, parseTimestamp } from '../../events/timestamp.js';

export interface TimeOptions {
  minTime?: string;
  allowBefore?: string;
  replaceChanged?: boolean;
  reread?: boolean;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export function timeOptions(command: Command): Command {
  return command
    .option('--min-time <date>', `reject times before this as implausible_timestamp (placeholders such as 0 or 1900-01-01; default ${formatBound(DEFAULT_MIN_TIME_MS)})`)
    .option('--allow-before <date>', 'the same option as --min-time, by another name')
    .option('--replace-changed', 'stage a file again although its options changed or rows of it were already delivered: rows of its earlier reads that changed or are gone are withdrawn')
    .option(
      '--reread',
      'read every source again, even one staged before and unchanged since (same size, time and inode for a file; same endpoint, size and ETag for a bucket object), which is otherwise not read',
    );
}

/**
 * --min-time (or --allow-before) in UTC ms: a day (`2000-01-01`, midnight UTC) or a time with a
 * zone. Not after `nowMs`: a bound in the future would reject everything.
 */
export function parseMinTime(options: TimeOptions, nowMs: number): number {
  if (options.minTime !== undefined && options.allowBefore !== undefined && options.minTime !== options.allowBefore) {
    throw new UsageError('--min-time and --allow-before are one option: give it once');
  }
  const text = options.minTime ?? options.allowBefore;
  if (text === undefined) return DEFAULT_MIN_TIME_MS;
  const flag = options.minTime !== undefined ? '--min-time' : '--allow-before';
  const ms = parseTimeFlag(flag, text);
  if (ms > nowMs) throw new UsageError(`${flag} ${text}: is in the future; every row would be rejected`);
  return ms;
}

/** A time flag's value in UTC ms: a day (`2000-01-01`, midnight UTC) or a time with a zone. */
export function parseTimeFlag(flag: string, text: string): number {
  const parsed = parseTimestamp(DATE_ONLY.test(text.trim()) ? `${text.trim()}T00:00:00Z` : text, flag);
  if (!parsed.ok) throw new UsageError(`${flag} ${text}: expected a date (2000-01-01) or a time with a zone (${parsed.problem.message})`);
  return parsed.ms;
}

/** ['minTime'] when neither --min-time nor --allow-before is given: a file read before keeps its earlier bound. */
export function defaultedTime(options: TimeOptions): string[] {
  return options.minTime === undefined && options.allowBefore === undefined ? ['minTime'] : [];
}
