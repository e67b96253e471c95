/** `migrate rejects`: every rejected row as `file:line field: reason`. */
import type { Command } from 'commander';
import { integerOption, jsonOption, stagingOption, type StagingOptions } from '../cli/common-options.js';
import { displayPath } from '../cli/display-path.js';
import { print, printJson } from '../cli/output.js';
import { listRejects } from '../staging/staging-report.js';
import { StagingStore } from '../staging/staging-store.js';

interface RejectsOptions extends StagingOptions {
  json?: boolean;
  reason?: string;
  limit?: number;
  raw?: boolean;
}

async function run(options: RejectsOptions): Promise<void> {
  const store = StagingStore.open(options.staging, { mustExist: true });
  try {
    const rows = listRejects(store, { reason: options.reason, limit: options.limit });
    if (options.json) {
      printJson(rows);
      return;
    }
    if (rows.length === 0) print('No rejected rows.');
    for (const row of rows) {
      print(`${displayPath(row.path)}:${row.line} ${row.reason} ${row.field ? `${row.field}: ` : ''}${row.message}`);
      if (options.raw) print(`    ${row.raw.length > 500 ? `${row.raw.slice(0, 500)}...` : row.raw}`);
    }
  } finally {
    store.close();
  }
}

export function registerRejects(program: Command): void {
  const command = program
    .command('rejects')
    .description('list rejected rows as file:line reason field: message')
    .option('--reason <code>', 'only this reason (e.g. bad_timestamp)')
    .option('--limit <n>', 'at most n rows', integerOption('--limit', 1))
    .option('--raw', 'also print each row as it was in the file');
  stagingOption(command);
  jsonOption(command);
  command.action(run);
}
