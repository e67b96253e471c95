/** `migrate rejects`: every rejected row as `file:line reason field: message`. */
import type { Command } from 'commander';
import { UsageError } from '../../../errors.js';
import { REJECT_REASONS } from '../../../events/reject-reasons.js';
import { readRejects, readWarnings } from '../../../staging/staging-report.js';
import { integerOption, jsonOption, stagingOption, type StagingOptions } from '../../options/common-options.js';
import { presentWarnings } from './warnings-output.js';
import { presentRejects } from './rejects-output.js';

interface RejectsOptions extends StagingOptions {
  json?: boolean;
  reason?: string;
  limit?: number;
  raw?: boolean;
  warnings?: boolean;
}

export function registerRejects(program: Command): void {
  const command = program
    .command('rejects')
    .description('list rejected rows as file:line reason field: message')
    .option('--reason <code>', 'only this reason (e.g. bad_timestamp)')
    .option('--limit <n>', 'at most n rows', integerOption('--limit', 1))
    .option('--raw', 'also print each row as it was in the file')
    .option('--warnings', 'list what was staged but PostHog would alter (ids it will not merge on, properties of two types, group types over 5), with the first lines');
  stagingOption(command);
  jsonOption(command);
  command.action((options: RejectsOptions) => {
    if (options.warnings === true) {
      presentWarnings(readWarnings(options.staging), options.json === true);
      return;
    }
    checkReason(options.reason);
    presentRejects(readRejects(options.staging, { reason: options.reason, limit: options.limit }), { json: options.json === true, raw: options.raw === true });
  });
}

/** A reason that no rule gives is a typo: "No rejected rows." would be a wrong answer to it. */
export function checkReason(reason: string | undefined): void {
  if (reason === undefined || Object.hasOwn(REJECT_REASONS, reason)) return;
  throw new UsageError(`--reason ${reason}: not a reject reason. Known reasons:\n  ${Object.keys(REJECT_REASONS).sort().join('\n  ')}`);
}
