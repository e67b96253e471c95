/** `migrate export-source`: reads source files into the staging file. */
import type { Command } from 'commander';
import { Option } from 'commander';
import { integerOption, jsonOption, quietOption, stagingOption, type StagingOptions } from '../cli/common-options.js';
import { UsageError } from '../errors.js';
import type { GroupColumn } from '../events/rules-spec.js';
import { MAX_GROUP_KEY_CHARS } from '../events/staged-event.js';
import { checkZone, loadMappingFile } from '../export/event-rules-options.js';
import { collect, runStaging } from '../export/run-staging.js';
import { CSV_ROLES, type CsvRole } from '../sources/source-item.js';
import { formatNames, SOURCE_FORMATS } from '../sources/formats.js';

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

async function run(files: string[], options: ExportOptions): Promise<void> {
  const source = SOURCE_FORMATS[options.from];
  if (source === undefined) throw new UsageError(`--from ${options.from}: unknown format (use ${formatNames().join(', ')})`);
  const groups = parseGroups(options.group);
  const rules = { mapping: loadMappingFile(options.map), timezone: checkZone(options.timezone), nowMs: Date.now(), groups };
  const columns = parseColumns(options.column);
  await runStaging(
    {
      files,
      staging: options.staging,
      command: 'export-source',
      format: options.from,
      source,
      workers: options.workers,
      readerOptions: { inferTypes: options.inferTypes, columns },
      rules,
      recordedOptions: { map: options.map ?? null, timezone: rules.timezone ?? null, inferTypes: options.inferTypes, columns, groups },
    },
    options,
  );
}

export function registerExportSource(program: Command): void {
  const command = program
    .command('export-source')
    .description('read source files into the staging file (validated, mapped, with stable uuids)')
    .argument('<files...>', 'source files (.gz read transparently)')
    .addOption(new Option('--from <format>', 'source format').choices(formatNames()).makeOptionMandatory())
    .option('--map <file>', 'mapping file: event and property renames (extends the defaults)')
    .option('--timezone <zone>', 'IANA zone for timestamps written without one (otherwise rejected)')
    .option('--column <role=header>', 'CSV: use another header for event, distinct_id, timestamp, uuid or properties (repeatable)', collect, [] as string[])
    .option('--group <type=column>', 'attach events to groups: $groups.<type> from that column or property (repeatable)', collect, [] as string[])
    .option('--no-infer-types', 'CSV: keep every cell as text (default: 42 and true become a number and a boolean)')
    .option('--workers <n>', 'worker threads per file, 0 = in-process (default: one per core for files of 8 MiB or more)', integerOption('--workers'));
  stagingOption(command);
  quietOption(command);
  jsonOption(command);
  command.action(run);
}
