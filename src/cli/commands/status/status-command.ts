/** `migrate status`: what is staged, where it came from, what was rejected, and per project what was delivered; `--check` checks every page. */
import type { Command } from 'commander';
import { checkStagingFile, damagedFileError } from '../../../staging/staging-check.js';
import { readStagingReport } from '../../../staging/staging-report.js';
import { jsonOption, stagingOption, type StagingOptions } from '../../options/common-options.js';
import { withTerminal } from '../../terminal/terminal-reporter.js';
import { presentCheck, presentStatus } from './status-output.js';

interface StatusOptions extends StagingOptions {
  json?: boolean;
  check?: boolean;
}

async function run(options: StatusOptions): Promise<void> {
  const json = options.json === true;
  if (!options.check) {
    presentStatus(readStagingReport(options.staging), json);
    return;
  }
  const check = await withTerminal({ quiet: json, interrupts: false }, async (reporter) => checkStagingFile(options.staging, reporter));
  presentCheck(check, json);
  if (!check.healthy) throw damagedFileError(check);
}

export function registerStatus(program: Command): void {
  const command = program
    .command('status')
    .description('show what is staged (sources, events, rejects) and, per project, delivered, pending and dead letters; reads only')
    .option('--check', "check every page of the staging file with SQLite's integrity check instead (reads the whole file; exit 7 when damaged)");
  stagingOption(command);
  jsonOption(command);
  command.action(run);
}
