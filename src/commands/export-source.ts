/** `migrate export-source`: reads source files into the staging file. */
import type { Command } from 'commander';
import { Option } from 'commander';
import { integerOption, jsonOption, quietOption, stagingOption, type StagingOptions } from '../cli/common-options.js';
import { watchInterrupts } from '../cli/interrupt.js';
import { printJson } from '../cli/output.js';
import { createProgress } from '../cli/progress.js';
import { UsageError } from '../errors.js';
import { checkZone, loadMappingFile } from '../export/event-rules-options.js';
import { printExportSummary } from '../export/export-summary.js';
import { stageFiles } from '../export/stage-files.js';
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

async function run(files: string[], options: ExportOptions): Promise<void> {
  const source = SOURCE_FORMATS[options.from];
  if (source === undefined) throw new UsageError(`--from ${options.from}: unknown format (use ${formatNames().join(', ')})`);
  const rules = { mapping: loadMappingFile(options.map), timezone: checkZone(options.timezone), nowMs: Date.now() };
  const columns = parseColumns(options.column);
  const interrupts = watchInterrupts();
  const progress = createProgress({ quiet: options.quiet || options.json });
  try {
    const result = await stageFiles({
      files,
      staging: options.staging,
      command: 'export-source',
      format: options.from,
      source,
      workers: options.workers,
      readerOptions: { inferTypes: options.inferTypes, columns },
      rules,
      recordedOptions: { map: options.map ?? null, timezone: rules.timezone ?? null, inferTypes: options.inferTypes, columns },
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
    .argument('<files...>', 'source files (.gz read transparently)')
    .addOption(new Option('--from <format>', 'source format').choices(formatNames()).makeOptionMandatory())
    .option('--map <file>', 'mapping file: event and property renames (extends the defaults)')
    .option('--timezone <zone>', 'IANA zone for timestamps written without one (otherwise rejected)')
    .option('--column <role=header>', 'CSV: use another header for event, distinct_id, timestamp, uuid or properties (repeatable)', (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option('--no-infer-types', 'CSV: keep every cell as text (default: 42 and true become a number and a boolean)')
    .option('--workers <n>', 'worker threads per file, 0 = in-process (default: one per core for files of 8 MiB or more)', integerOption('--workers'));
  stagingOption(command);
  quietOption(command);
  jsonOption(command);
  command.action(run);
}
