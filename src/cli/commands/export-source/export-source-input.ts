/**
 * export-source's options as the staging use case's input. Pure but for reading the mapping
 * file, so a table of argv cases covers it without running anything.
 */
import { UsageError } from '../../../errors.js';
import type { GroupColumn } from '../../../events/rules-spec.js';
import { MAX_GROUP_KEY_CHARS } from '../../../posthog/limits.js';
import { formatNames, SOURCE_FORMATS } from '../../../sources/formats.js';
import { JSON_COLUMN_ROLES } from '../../../sources/json-columns.js';
import { CSV_ROLES } from '../../../sources/source-item.js';
import { DEFAULT_SEGMENT_GROUP_TYPE } from '../../../sources/vendors/segment.js';
import type { StageSourcesInput } from '../../../stage-sources/stage-sources.js';
import { exportSourceRecordedOptions } from '../../../stage-sources/recorded-options.js';
import type { StagingOptions } from '../../options/common-options.js';
import { checkZone, loadMappingFile } from '../../options/event-rule-options.js';
import { defaultedReading, parseColumns, readingInput, type ReadingFlags } from '../../options/reading-options.js';
import { rowSelection, type RowSelectionFlags } from '../../options/row-selection-options.js';
import { defaultedTime, parseMinTime, type TimeOptions } from '../../options/time-options.js';
import { apiSourceNames } from '../../../source-apis/api-sources.js';
import { refuseApiFlags, type ApiSourceOptions } from './api-source-flags.js';
import { toBucketInput, type BucketFlags } from '../../options/bucket-options.js';

export interface ExportSourceOptions extends StagingOptions, TimeOptions, ReadingFlags, ApiSourceOptions, RowSelectionFlags, BucketFlags {
  from: string;
  map?: string;
  timezone?: string;
  inferTypes: boolean;
  quiet?: boolean;
  json?: boolean;
  workers?: number;
  group: string[];
  segmentGroupType?: string;
  /** --no-identity-links sets it false. */
  identityLinks: boolean;
  maxUsersPerDevice?: number;
  sessionize?: number;
  strictTime?: boolean;
  /** false with --no-geoip. */
  geoip: boolean;
}

/** The roles --column may name for a format: CSV headers and table columns, or paths in JSON (properties only for plain JSON lines). */
function columnRoles(format: string): readonly string[] {
  if (format === 'csv' || format === 'jsonl' || format === 'parquet' || format === 'avro') return CSV_ROLES;
  return JSON_COLUMN_ROLES;
}

/** --group company=company_id: the value of that column (property) becomes $groups.company. */
export function parseGroups(values: string[]): GroupColumn[] {
  return values.map((value) => {
    const [type, property] = value.split('=', 2) as [string, string | undefined];
    if (!type || !property || type.length > MAX_GROUP_KEY_CHARS) throw new UsageError(`--group ${value}: expected <group type>=<column>`);
    return { type, property };
  });
}

/** --segment-group-type: the group type of Segment group calls; only for --from segment. */
export function segmentGroupType(from: string, value: string | undefined): string | undefined {
  if (from !== 'segment') {
    if (value !== undefined) throw new UsageError(`--segment-group-type applies to --from segment only`);
    return undefined;
  }
  const type = (value ?? DEFAULT_SEGMENT_GROUP_TYPE).trim();
  if (type === '' || type.length > MAX_GROUP_KEY_CHARS) throw new UsageError(`--segment-group-type: must be 1 to ${MAX_GROUP_KEY_CHARS} characters`);
  return type;
}

/** Formats whose events identity links are drawn from. */
const LINKED_FORMATS = ['amplitude', 'mixpanel'];

/** The identity-link and --strict-time options, refused for the formats they do not apply to. */
export function vendorOptions(from: string, options: Pick<ExportSourceOptions, 'identityLinks' | 'maxUsersPerDevice' | 'strictTime'>): { identityLinks?: boolean; strictTime?: boolean } {
  const linked = LINKED_FORMATS.includes(from);
  if (!linked && options.identityLinks === false) throw new UsageError('--no-identity-links applies to --from amplitude and --from mixpanel only');
  if (!linked && options.maxUsersPerDevice !== undefined) throw new UsageError('--max-users-per-device applies to --from amplitude and --from mixpanel only');
  if (from !== 'amplitude' && options.strictTime === true) throw new UsageError('--strict-time applies to --from amplitude only');
  return {
    ...(linked ? { identityLinks: options.identityLinks !== false } : {}),
    ...(from === 'amplitude' ? { strictTime: options.strictTime === true } : {}),
  };
}

/** What shapes the staged content of a format: its event rules, reader options, and the options recorded with each read. */
export type StagingShape = Pick<StageSourcesInput, 'format' | 'readerOptions' | 'rules' | 'recordedOptions' | 'defaulted' | 'ingestion' | 'passes'>;

export async function stagingShape(options: ExportSourceOptions, nowMs: number): Promise<StagingShape> {
  const source = SOURCE_FORMATS[options.from];
  if (source === undefined) throw new UsageError(`--from ${options.from}: unknown format (use ${formatNames().join(', ')})`);
  if (options.timezone !== undefined && source.timezone === 'utc') {
    throw new UsageError(`--timezone does not apply to --from ${options.from}: its export's times are always UTC`);
  }
  const groups = parseGroups(options.group);
  const zone = checkZone(options.timezone);
  const timezone = zone?.name;
  const minTimeMs = parseMinTime(options, nowMs);
  const mapping = await loadMappingFile(options.map);
  const selection = await rowSelection(options);
  const rules = {
    mapping,
    formatRenames: source.eventRenames,
    // A Mixpanel project zone applies to its `time` values, read by its reader, not to rows.
    timezone: source.timezone === 'project' ? undefined : timezone,
    nowMs,
    minTimeMs,
    groups,
    sessionizeMinutes: options.sessionize,
    ...(selection.filters === undefined ? {} : { filters: selection.filters }),
    ...(selection.transform === undefined ? {} : { transform: selection.transform }),
  };
  const columns = parseColumns(options.column, columnRoles(options.from), options.from === 'csv' ? 'header' : 'path');
  const reading = readingInput(options, source.layout === 'csv');
  const groupType = segmentGroupType(options.from, options.segmentGroupType);
  const vendor = vendorOptions(options.from, options);
  return {
    format: options.from,
    readerOptions: { inferTypes: options.inferTypes, columns, timezone: source.timezone === 'project' ? timezone : undefined, groupType, strictTime: vendor.strictTime, ...reading },
    defaulted: [...defaultedReading(options), ...defaultedTime(options), ...(options.segmentGroupType === undefined ? ['segmentGroupType'] : [])],
    rules,
    ingestion: { geoipFromIp: options.geoip, importSource: options.from },
    recordedOptions: exportSourceRecordedOptions({
      format: source,
      mapPath: options.map,
      mapping,
      zone: zone?.canonical,
      inferTypes: options.inferTypes,
      columns,
      groups,
      minTimeMs,
      geoip: options.geoip,
      segmentGroupType: groupType,
      vendor,
      sessionizeMinutes: options.sessionize,
      selection: selection.recorded,
    }),
    passes: { maxUsersPerDevice: options.maxUsersPerDevice, sessionizeMinutes: options.sessionize },
  };
}

export async function toExportSourceInput(files: string[], options: ExportSourceOptions, nowMs: number): Promise<StageSourcesInput> {
  refuseApiFlags(options.from, options);
  if (files.length === 0) {
    throw new UsageError('no source files given: name files, directories, globs or s3:// prefixes', [
      `To fetch from an export API instead: --from ${apiSourceNames().join(' or --from ')} with --start and --end.`,
    ]);
  }
  const shape = await stagingShape(options, nowMs);
  return {
    files,
    staging: options.staging,
    command: 'export-source',
    format: shape.format,
    workers: options.workers,
    readerOptions: shape.readerOptions,
    expandInputs: true,
    replaceChanged: options.replaceChanged === true,
    reread: options.reread === true,
    defaulted: shape.defaulted,
    rules: shape.rules,
    ingestion: shape.ingestion,
    recordedOptions: shape.recordedOptions,
    passes: shape.passes,
    ...withBuckets(toBucketInput(files, options, process.env)),
  };
}

function withBuckets(buckets: StageSourcesInput['buckets']): Pick<StageSourcesInput, 'buckets'> {
  return buckets === undefined ? {} : { buckets };
}
