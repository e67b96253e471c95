/**
 * What export-source records with each read (its content-shaping options, see
 * content-options.ts): the values that make a file's rows what they are, in the form they are
 * compared in on a later read. The mapping is recorded by its content's fingerprint, whatever
 * its path or layout; times as ISO text; a Mixpanel project zone of none as UTC. Pure.
 */
import { createHash } from 'node:crypto';
import type { MappingFile } from '../events/mapping-schema.js';
import type { GroupColumn } from '../events/rules-spec.js';
import { canonicalJson } from '../json/canonical-json.js';
import type { SourceFormat } from '../sources/source-item.js';
import { RECORDED_FORMAT_KEY } from '../staging/source-reads.js';

/** The values export-source stages with, as the use case records them. */
export interface ExportSourceChoices {
  format: SourceFormat;
  /** The mapping file's path as given, and its content. */
  mapPath: string | undefined;
  mapping: MappingFile | undefined;
  /** The canonical name of --timezone's zone. */
  zone: string | undefined;
  inferTypes: boolean;
  columns: unknown;
  groups: GroupColumn[];
  minTimeMs: number;
  geoip: boolean;
  segmentGroupType: string | undefined;
  /** identityLinks and strictTime, for the formats they apply to. */
  vendor: { identityLinks?: boolean; strictTime?: boolean };
  sessionizeMinutes: number | undefined;
  /** What the row selection records (--only-events, --skip-events, --since, --until, --transform). */
  selection: Record<string, unknown>;
}

/** The mapping file's content as recorded with a read: its fingerprint, whatever its path or layout. */
export function mappingFingerprint(mapping: MappingFile | undefined): string | null {
  return mapping === undefined ? null : `sha256:${createHash('sha256').update(canonicalJson(mapping)).digest('hex')}`;
}

/**
 * The zone recorded with a read, so a re-read with another is refused. A Mixpanel project zone
 * moves every event, so "none" is recorded as UTC (what it means there): adding one later is a
 * change too, not only a fix for rows that had no zone.
 */
export function recordedZone(format: SourceFormat, zone: string | undefined): string | null {
  return zone ?? (format.timezone === 'project' ? 'UTC' : null);
}

/** The earliest time rows may have, as recorded: ISO text. */
export function recordedMinTime(minTimeMs: number): string {
  return new Date(minTimeMs).toISOString();
}

/** The options recorded with each read of an export-source run (keys are never renamed: staging files record them by key). */
export function exportSourceRecordedOptions(c: ExportSourceChoices): Record<string, unknown> {
  return {
    map: c.mapPath ?? null,
    mapping: mappingFingerprint(c.mapping),
    timezone: recordedZone(c.format, c.zone),
    inferTypes: c.inferTypes,
    columns: c.columns,
    groups: c.groups,
    minTime: recordedMinTime(c.minTimeMs),
    geoip: c.geoip,
    ...(c.segmentGroupType === undefined ? {} : { segmentGroupType: c.segmentGroupType }),
    ...c.vendor,
    sessionize: c.sessionizeMinutes ?? null,
    ...c.selection,
  };
}

/**
 * The options recorded with each read, with the format the command reads with (`csv`,
 * `users-csv`): one file read as another format (or by another command) gives other rows, so a
 * later read compares it as any content-shaping option (content-options.ts).
 */
export function withFormat(recorded: Record<string, unknown>, format: string): Record<string, unknown> {
  return { ...recorded, [RECORDED_FORMAT_KEY]: format };
}
