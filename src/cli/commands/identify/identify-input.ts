/**
 * identify-users' and identify-groups' options as the staging use case's input: person
 * updates ($identify) or group updates ($groupidentify) from a users or groups file. Pure.
 */
import { UsageError } from '../../../errors.js';
import { EventKind, MAX_GROUP_KEY_CHARS, RECENT_WINDOW_MS, type EventKindValue } from '../../../events/staged-event.js';
import type { ReaderOptions } from '../../../sources/source-item.js';
import type { StageSourcesInput } from '../../../stage-sources/stage-sources.js';
import type { StagingOptions } from '../../options/common-options.js';
import { checkZone } from '../../options/event-rule-options.js';
import { parseMinTime, recordedMinTime, type TimeOptions } from '../../options/time-options.js';

export interface IdentifyOptions extends StagingOptions, TimeOptions {
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

function stagingInput(files: string[], options: IdentifyOptions, kind: EventKindValue, readerOptions: Omit<ReaderOptions, 'displayName'>, nowMs: number): StageSourcesInput {
  const prefix = kind === EventKind.person ? 'users' : 'groups';
  const timezone = checkZone(options.timezone);
  const minTimeMs = parseMinTime(options, nowMs);
  return {
    files,
    staging: options.staging,
    command: kind === EventKind.person ? 'identify-users' : 'identify-groups',
    format: `${prefix}-${options.from}`,
    workers: options.workers,
    readerOptions: { inferTypes: options.inferTypes, ...readerOptions },
    expandInputs: false,
    replaceChanged: options.replaceChanged === true,
    rules: { timezone, nowMs, minTimeMs, kind },
    ingestion: { geoipFromIp: options.geoip, importSource: kind === EventKind.person ? 'identify-users' : 'identify-groups' },
    defaultTimestampMs: defaultUpdateTimestampMs(nowMs),
    recordedOptions: { timezone: timezone ?? null, inferTypes: options.inferTypes, ...readerOptions, minTime: recordedMinTime(minTimeMs), geoip: options.geoip },
  };
}

export function toIdentifyUsersInput(files: string[], options: IdentifyOptions, nowMs: number): StageSourcesInput {
  const setOnce = (options.setOnce ?? '').split(',').map((c) => c.trim()).filter((c) => c !== '');
  return stagingInput(files, options, EventKind.person, { setOnce }, nowMs);
}

export function toIdentifyGroupsInput(files: string[], options: IdentifyOptions, nowMs: number): StageSourcesInput {
  const groupType = options.groupType!.trim();
  if (groupType === '' || groupType.length > MAX_GROUP_KEY_CHARS) {
    throw new UsageError(`--group-type: must be 1 to ${MAX_GROUP_KEY_CHARS} characters`);
  }
  return stagingInput(files, options, EventKind.group, { groupType, keyColumn: options.keyColumn }, nowMs);
}
