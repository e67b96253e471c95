/** `migrate export-source`: reads source files into the staging file. */
import type { Command } from 'commander';
import { Option } from 'commander';
import { integerOption, jsonOption, quietOption, stagingOption, type StagingOptions } from '../cli/common-options.js';
import { UsageError } from '../errors.js';
import type { GroupColumn } from '../events/rules-spec.js';
import { MAX_GROUP_KEY_CHARS } from '../events/staged-event.js';
import { checkZone, loadMappingFile } from '../export/event-rules-options.js';
import { collect, runStaging } from '../export/run-staging.js';
import { CSV_ROLES, type CsvRole, type SourceFormat } from '../sources/source-item.js';
import { expandInput } from '../sources/expand-inputs.js';
import { formatNames, SOURCE_FORMATS } from '../sources/formats.js';
import { openInputs } from '../sources/zip-input.js';

interface ExportOptions extends StagingOptions {
  from: string;
  map?: string;
  timezone?: string;
  column: string[];
  inferTypes: boolean;
  quiet?: boolean;
  json?: boolean;
  workers?: number;
  group: string[];
}

function parseColumns(values: string[]): Partial<Record<CsvRole, string>> {
  const columns: Partial<Record<CsvRole, string>> = {};
  for (const value of values) {
    const [role, header] = value.split('=', 2) as [string, string | undefined];
    if (!CSV_ROLES.includes(role as CsvRole) || !header) {
      throw new UsageError(`--column ${value}: expected <role>=<header> with role one of ${CSV_ROLES.join(', ')}`);
    }
    columns[role as CsvRole] = header;
  }
  return columns;
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

async function run(files: string[], options: ExportOptions): Promise<void> {
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
    nowMs: Date.now(),
    groups,
  };
  const columns = parseColumns(options.column);
  await runStaging(
    {
      files,
      staging: options.staging,
      command: 'export-source',
      format: options.from,
      source,
      workers: options.workers,
      readerOptions: { inferTypes: options.inferTypes, columns, timezone: source.timezone === 'project' ? timezone : undefined },
      expand: (file) => expandInput(file, source.extensions),
      open: (file) => openInputs(file, source.extensions),
      rules,
      recordedOptions: { map: options.map ?? null, timezone: recordedZone(source, timezone), inferTypes: options.inferTypes, columns, groups },
    },
    options,
  );
}

export function registerExportSource(program: Command): void {
  const command = program
    .command('export-source')
    .description('read source files into the staging file (validated, mapped, with stable uuids)')
    .argument('<files...>', 'source files, directories or globs (.gz and .zip read as streams)')
    .addOption(new Option('--from <format>', 'source format').choices(formatNames()).makeOptionMandatory())
    .option('--map <file>', 'mapping file: event and property renames (extends the defaults)')
    .option('--timezone <zone>', 'IANA zone for timestamps written without one (otherwise rejected); mixpanel: the project time zone')
    .option('--column <role=header>', 'CSV: use another header for event, distinct_id, timestamp, uuid or properties (repeatable)', collect, [] as string[])
    .option('--group <type=column>', 'attach events to groups: $groups.<type> from that column or property (repeatable)', collect, [] as string[])
    .option('--no-infer-types', 'CSV: keep every cell as text (default: 42 and true become a number and a boolean)')
    .option('--workers <n>', 'worker threads per file, 0 = in-process (default: one per core for files of 8 MiB or more)', integerOption('--workers'));
  stagingOption(command);
  quietOption(command);
  jsonOption(command);
  command.action(run);
}
