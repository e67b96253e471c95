/**
 * `migrate identify-users` and `migrate identify-groups`: stage person updates ($identify) and
 * group updates ($groupidentify) from a users or groups file, with the same validation,
 * rejects, stable uuids and idempotent re-runs as export-source. Import sends them after the
 * events, so the final state of each person and group is the file's.
 */
import { Option, type Command } from 'commander';
import { integerOption, jsonOption, quietOption, stagingOption, type StagingOptions } from '../cli/common-options.js';
import { UsageError } from '../errors.js';
import { EventKind, MAX_GROUP_KEY_CHARS, RECENT_WINDOW_MS, type EventKindValue } from '../events/staged-event.js';
import { checkZone } from '../export/event-rules-options.js';
import { runStaging } from '../export/run-staging.js';
import { RECORD_FORMATS } from '../sources/formats.js';
import type { ReaderOptions } from '../sources/source-item.js';

interface IdentifyOptions extends StagingOptions {
  from: 'csv' | 'jsonl';
  timezone?: string;
  inferTypes: boolean;
  quiet?: boolean;
  json?: boolean;
  workers?: number;
  setOnce?: string;
  groupType?: string;
  keyColumn?: string;
}

/**
 * Rows without a timestamp get the time the file is first staged minus 48 hours, to the minute:
 * PostHog wants historical data at least 48 hours old. It is recorded, so re-runs reuse it.
 */
export function defaultUpdateTimestampMs(nowMs: number): number {
  return Math.floor((nowMs - RECENT_WINDOW_MS) / 60_000) * 60_000;
}

async function stage(files: string[], options: IdentifyOptions, kind: EventKindValue, readerOptions: Omit<ReaderOptions, 'displayName'>): Promise<void> {
  const prefix = kind === EventKind.person ? 'users' : 'groups';
  const nowMs = Date.now();
  const timezone = checkZone(options.timezone);
  await runStaging(
    {
      files,
      staging: options.staging,
      command: kind === EventKind.person ? 'identify-users' : 'identify-groups',
      format: `${prefix}-${options.from}`,
      source: RECORD_FORMATS[`${prefix}-${options.from}`]!,
      workers: options.workers,
      readerOptions: { inferTypes: options.inferTypes, ...readerOptions },
      rules: { timezone, nowMs, kind },
      defaultTimestampMs: defaultUpdateTimestampMs(nowMs),
      recordedOptions: { timezone: timezone ?? null, inferTypes: options.inferTypes, ...readerOptions },
    },
    options,
  );
}

function common(command: Command): Command {
  command
    .argument('<files...>', 'users or groups files (.gz read transparently)')
    .addOption(new Option('--from <format>', 'file format').choices(['csv', 'jsonl']).makeOptionMandatory())
    .option('--timezone <zone>', 'IANA zone for timestamps written without one (otherwise rejected)')
    .option('--no-infer-types', 'CSV: keep every cell as text')
    .option('--workers <n>', 'worker threads per file, 0 = in-process', integerOption('--workers'));
  stagingOption(command);
  quietOption(command);
  return jsonOption(command);
}

export function registerIdentify(program: Command): void {
  common(
    program
      .command('identify-users')
      .description('stage one $identify per user: distinct_id, optional anon_distinct_id and timestamp; other columns go to $set')
      .option('--set-once <columns>', 'comma-separated columns that go into $set_once (never overwrite)'),
  ).action((files: string[], options: IdentifyOptions) => {
    const setOnce = (options.setOnce ?? '').split(',').map((c) => c.trim()).filter((c) => c !== '');
    return stage(files, options, EventKind.person, { setOnce });
  });

  common(
    program
      .command('identify-groups')
      .description('stage one $groupidentify per group: group_key required; other columns go to $group_set')
      .requiredOption('--group-type <type>', 'the group type, e.g. company')
      .option('--key-column <column>', 'the column holding the group key', 'group_key'),
  ).action((files: string[], options: IdentifyOptions) => {
    const groupType = options.groupType!.trim();
    if (groupType === '' || groupType.length > MAX_GROUP_KEY_CHARS) {
      throw new UsageError(`--group-type: must be 1 to ${MAX_GROUP_KEY_CHARS} characters`);
    }
    return stage(files, options, EventKind.group, { groupType, keyColumn: options.keyColumn });
  });
}
