/** `migrate rejects`: every rejected row as `file:line reason field: message`. */
import type { Command } from 'commander';
import { readRejects } from '../../../staging/staging-report.js';
import { integerOption, jsonOption, stagingOption, type StagingOptions } from '../../options/common-options.js';
import { presentRejects } from './rejects-output.js';

interface RejectsOptions extends StagingOptions {
  json?: boolean;
  reason?: string;
  limit?: number;
  raw?: boolean;
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
  command.action((options: RejectsOptions) =>
    presentRejects(readRejects(options.staging, { reason: options.reason, limit: options.limit }), { json: options.json === true, raw: options.raw === true }),
  );
}
