/** `migrate status`: what is staged, where it came from, what was rejected, and per project what was delivered. */
import type { Command } from 'commander';
import { readStagingReport } from '../../../staging/staging-report.js';
import { jsonOption, stagingOption, type StagingOptions } from '../../options/common-options.js';
import { presentStatus } from './status-output.js';

export function registerStatus(program: Command): void {
  const command = program.command('status').description('show what is staged (sources, events, rejects) and, per project, delivered, pending and dead letters');
  stagingOption(command);
  jsonOption(command);
  command.action((options: StagingOptions & { json?: boolean }) => presentStatus(readStagingReport(options.staging), options.json === true));
}
