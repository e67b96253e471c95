/** `migrate export-source`: reads source files into the staging file. */
import type { Command } from 'commander';
import { Option } from 'commander';
import { jsonOption, quietOption, stagingOption, type StagingOptions } from '../cli/common-options.js';
import { watchInterrupts } from '../cli/interrupt.js';
import { printJson } from '../cli/output.js';
import { createProgress } from '../cli/progress.js';
import { UsageError } from '../errors.js';
import type { ZoneConverter } from '../events/time-zone.js';
import { loadNameMap, loadZone } from '../export/event-rules-options.js';
import { printExportSummary } from '../export/export-summary.js';
import { stageFiles } from '../export/stage-files.js';
import { CSV_ROLES, type CsvRole } from '../sources/source-item.js';
import { expandInput } from '../sources/expand-inputs.js';
import { formatNames, SOURCE_FORMATS, type SourceFormat } from '../sources/formats.js';
import { openInputs } from '../sources/zip-input.js';

interface ExportOptions extends StagingOptions {
  from: string;
  map?: string;
  timezone?: string;
  column: string[];
  inferTypes: boolean;
  quiet?: boolean;
  json?: boolean;
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

/**
 * The zone recorded with a read, so a re-read with another is refused. A Mixpanel project zone
 * moves every event, so "none" is recorded as UTC (what it means there): adding one later is a
 * change too, not only a fix for rows that had no zone.
 */
function recordedZone(format: SourceFormat, zone: ZoneConverter | undefined): string | null {
  return zone?.name ?? (format.timezone === 'project' ? 'UTC' : null);
}

async function run(files: string[], options: ExportOptions): Promise<void> {
  const format = SOURCE_FORMATS[options.from];
  if (format === undefined) throw new UsageError(`--from ${options.from}: unknown format (use ${formatNames().join(', ')})`);
  if (options.timezone !== undefined && format.timezone === 'utc') {
    throw new UsageError(`--timezone does not apply to --from ${options.from}: its export's times are always UTC`);
  }
  const rules = { nameMap: loadNameMap(options.map, format.eventRenames), zone: loadZone(options.timezone), nowMs: Date.now() };
  const columns = parseColumns(options.column);
  const interrupts = watchInterrupts();
  const progress = createProgress({ quiet: options.quiet || options.json });
  try {
    const result = await stageFiles({
      files,
      staging: options.staging,
      command: 'export-source',
      format: options.from,
      reader: format.reader,
      readerOptions: { inferTypes: options.inferTypes, columns, zone: format.timezone === 'project' ? rules.zone : undefined },
      expand: (file) => expandInput(file, format.extensions),
      open: (file) => openInputs(file, format.extensions),
      rules,
      recordedOptions: { map: options.map ?? null, timezone: recordedZone(format, rules.zone), inferTypes: options.inferTypes, columns },
      progress,
      signal: interrupts.signal,
    });
    if (options.json) printJson(result);
    else printExportSummary(result);
  } finally {
    progress.stop();
    interrupts.dispose();
  }
}

export function registerExportSource(program: Command): void {
  const command = program
    .command('export-source')
    .description('read source files into the staging file (validated, mapped, with stable uuids)')
    .argument('<files...>', 'source files, directories or globs (.gz and .zip read as streams)')
    .addOption(new Option('--from <format>', 'source format').choices(formatNames()).makeOptionMandatory())
    .option('--map <file>', 'mapping file: event and property renames (extends the defaults)')
    .option('--timezone <zone>', 'IANA zone for timestamps written without one (otherwise rejected); mixpanel: the project time zone')
    .option('--column <role=header>', 'CSV: use another header for event, distinct_id, timestamp, uuid or properties (repeatable)', (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option('--no-infer-types', 'CSV: keep every cell as text (default: 42 and true become a number and a boolean)');
  stagingOption(command);
  quietOption(command);
  jsonOption(command);
  command.action(run);
}
