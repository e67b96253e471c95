/**
 * export-source's options as the staging use case's input. Pure but for reading the mapping
 * file, so a table of argv cases covers it without running anything.
 */
import { UsageError } from '../../../errors.js';
import type { GroupColumn } from '../../../events/rules-spec.js';
import { MAX_GROUP_KEY_CHARS } from '../../../events/staged-event.js';
import { formatNames, SOURCE_FORMATS } from '../../../sources/formats.js';
import { JSON_COLUMN_ROLES } from '../../../sources/json-columns.js';
import { CSV_ROLES, type SourceFormat } from '../../../sources/source-item.js';
import type { StageSourcesInput } from '../../../stage-sources/stage-sources.js';
import type { StagingOptions } from '../../options/common-options.js';
import { checkZone, loadMappingFile } from '../../options/event-rule-options.js';
import { parseColumns, readingInput, type ReadingFlags } from '../../options/reading-options.js';

export interface ExportSourceOptions extends StagingOptions, ReadingFlags {
  from: string;
  map?: string;
  timezone?: string;
  inferTypes: boolean;
  quiet?: boolean;
  json?: boolean;
  workers?: number;
  group: string[];
}

/** The roles --column may name for a format: CSV headers, or paths in JSON (properties only for plain JSON lines). */
function columnRoles(format: string): readonly string[] {
  if (format === 'csv' || format === 'jsonl') return CSV_ROLES;
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

/**
 * The zone recorded with a read, so a re-read with another is refused. A Mixpanel project zone
 * moves every event, so "none" is recorded as UTC (what it means there): adding one later is a
 * change too, not only a fix for rows that had no zone.
 */
function recordedZone(format: SourceFormat, zone: string | undefined): string | null {
  return zone ?? (format.timezone === 'project' ? 'UTC' : null);
}

export async function toExportSourceInput(files: string[], options: ExportSourceOptions, nowMs: number): Promise<StageSourcesInput> {
  const source = SOURCE_FORMATS[options.from];
  if (source === undefined) throw new UsageError(`--from ${options.from}: unknown format (use ${formatNames().join(', ')})`);
  if (options.timezone !== undefined && source.timezone === 'utc') {
    throw new UsageError(`--timezone does not apply to --from ${options.from}: its export's times are always UTC`);
  }
  const groups = parseGroups(options.group);
  const timezone = checkZone(options.timezone);
  const rules = {
    mapping: await loadMappingFile(options.map),
    formatRenames: source.eventRenames,
    // A Mixpanel project zone applies to its `time` values, read by its reader, not to rows.
    timezone: source.timezone === 'project' ? undefined : timezone,
    nowMs,
    groups,
  };
  const columns = parseColumns(options.column, columnRoles(options.from), options.from === 'csv' ? 'header' : 'path');
  const reading = readingInput(options, source.layout === 'csv');
  return {
    files,
    staging: options.staging,
    command: 'export-source',
    format: options.from,
    workers: options.workers,
    readerOptions: { inferTypes: options.inferTypes, columns, timezone: source.timezone === 'project' ? timezone : undefined, ...reading },
    expandInputs: true,
    rules,
    recordedOptions: { map: options.map ?? null, timezone: recordedZone(source, timezone), inferTypes: options.inferTypes, columns, groups },
  };
}
