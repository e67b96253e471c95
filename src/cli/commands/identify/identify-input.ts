/**
 * identify-users' and identify-groups' options as the staging use case's input: person
 * updates ($identify) or group updates ($groupidentify) from a users or groups file. Pure.
 */
import { UsageError } from '../../../errors.js';
import { EventKind, RECENT_WINDOW_MS, type EventKindValue } from '../../../events/staged-event.js';
import { MAX_GROUP_KEY_CHARS } from '../../../posthog/limits.js';
import type { ReaderOptions } from '../../../sources/source-item.js';
import type { StageSourcesInput } from '../../../stage-sources/stage-sources.js';
import type { StagingOptions } from '../../options/common-options.js';
import { checkZone } from '../../options/event-rule-options.js';
import { defaultedReading, parseColumns, readingInput, type ReadingFlags } from '../../options/reading-options.js';
import { defaultedTime, parseMinTime, type TimeOptions } from '../../options/time-options.js';
import { recordedMinTime } from '../../../stage-sources/recorded-options.js';

export interface IdentifyOptions extends StagingOptions, TimeOptions, ReadingFlags {
  from: 'csv' | 'jsonl';
  timezone?: string;
  inferTypes: boolean;
  quiet?: boolean;
  json?: boolean;
  workers?: number;
  setOnce?: string;
  groupType?: string;
  keyColumn?: string;
  /** false with --no-geoip. */
  geoip: boolean;
}

/**
 * Rows without a timestamp get the time the file is first staged minus 48 hours, to the minute:
 * PostHog wants historical data at least 48 hours old. It is recorded, so re-runs reuse it.
 */
export function defaultUpdateTimestampMs(nowMs: number): number {
  return Math.floor((nowMs - RECENT_WINDOW_MS) / 60_000) * 60_000;
}

/** The fields --column may name: a users file's, or a groups file's (whose key has --key-column). */
const USER_ROLES = ['distinct_id', 'anon_distinct_id', 'timestamp', 'uuid'];
const GROUP_ROLES = ['timestamp', 'uuid'];

function stagingInput(files: string[], options: IdentifyOptions, kind: EventKindValue, readerOptions: Omit<ReaderOptions, 'displayName'>, nowMs: number): StageSourcesInput {
  const prefix = kind === EventKind.person ? 'users' : 'groups';
  const zone = checkZone(options.timezone);
  const timezone = zone?.name;
  const minTimeMs = parseMinTime(options, nowMs);
  const column = options.column ?? [];
  const columns = parseColumns(column, kind === EventKind.person ? USER_ROLES : GROUP_ROLES, options.from === 'csv' ? 'header' : 'path');
  const reading = readingInput({ ...options, column }, options.from === 'csv');
  const recorded = column.length > 0 ? { ...readerOptions, columns } : readerOptions;
  return {
    files,
    staging: options.staging,
    command: kind === EventKind.person ? 'identify-users' : 'identify-groups',
    format: `${prefix}-${options.from}`,
    workers: options.workers,
    readerOptions: { inferTypes: options.inferTypes, ...readerOptions, ...(column.length > 0 ? { columns } : {}), ...reading },
    expandInputs: false,
    replaceChanged: options.replaceChanged === true,
    reread: options.reread === true,
    defaulted: [...defaultedReading(options), ...defaultedTime(options)],
    rules: { timezone, nowMs, minTimeMs, kind },
    ingestion: { geoipFromIp: options.geoip, importSource: kind === EventKind.person ? 'identify-users' : 'identify-groups' },
    defaultTimestampMs: defaultUpdateTimestampMs(nowMs),
    recordedOptions: { timezone: zone?.canonical ?? null, inferTypes: options.inferTypes, ...recorded, minTime: recordedMinTime(minTimeMs), geoip: options.geoip },
  };
}

export function toIdentifyUsersInput(files: string[], options: IdentifyOptions, nowMs: number): StageSourcesInput {
  const setOnce = (options.setOnce ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  return stagingInput(files, options, EventKind.person, { setOnce }, nowMs);
}

export function toIdentifyGroupsInput(files: string[], options: IdentifyOptions, nowMs: number): StageSourcesInput {
  const groupType = options.groupType!.trim();
  if (groupType === '' || groupType.length > MAX_GROUP_KEY_CHARS) {
    throw new UsageError(`--group-type: must be 1 to ${MAX_GROUP_KEY_CHARS} characters`);
  }
  return stagingInput(files, options, EventKind.group, { groupType, keyColumn: options.keyColumn }, nowMs);
}
