/** `migrate import --project <name>`: sends the staged events not yet delivered to that project. */
import type { Command } from 'commander';
import { integerOption } from '../../options/common-options.js';
import { givenSettings, importRunOptions } from '../../options/delivery-flags.js';
import { refuseMisplacedGeoip } from '../../options/geoip-option.js';
import { stagingLogPath } from '../../terminal/interrupts.js';
import { withTerminal } from '../../terminal/terminal-reporter.js';
import { presentDryRun } from './dry-run-output.js';
import { toImportInput, type ImportOptions } from './import-input.js';
import { presentRun, presentUnfinished } from './run-output.js';

async function run(options: ImportOptions, command: Command): Promise<void> {
  refuseMisplacedGeoip(command.opts(), 'import');
  const input = toImportInput(options, givenSettings(command));
  const json = options.json === true;
  const quiet = options.quiet === true || json;
  // Loaded on use: the delivery stack (undici, zlib) would slow every other command's start.
  const { dryRunImport, importProject } = await import('../../../import/import-project.js');
  if (options.dryRun) {
    presentDryRun(await withTerminal({ quiet, interrupts: false }, (reporter) => dryRunImport(input, reporter)), json);
    return;
  }
  const place = { staging: options.staging, config: options.config };
  const result = await withTerminal({ quiet, interrupts: true, log: { file: stagingLogPath(options.staging), command: 'import' } }, (reporter, signal) => importProject(input, reporter, signal)).catch(
    presentUnfinished(json, place),
  );
  presentRun(result.summary, json, result.next, place);
}

export function registerImport(program: Command): void {
  const command = program
    .command('import')
    .description('send staged events to a project (resumable; checkpoint after every accepted chunk)')
    .requiredOption('--project <name>', 'project name from the config')
    .option('--sample <n>', 'send at most n events (a rehearsal on a test project)', integerOption('--sample', 1))
    .option('--skip-test-first', 'import into a production project before any test import (recorded in the staging file)')
    .option('--skip-preflight', "send without the preflight (migrate doctor's checks) before the project's first chunk (recorded in the staging file)")
    .option('--retry-dead-letters', "send the project's dead letters again (after fixing their cause); recorded in the staging file")
    .option('--dry-run', 'build the chunks and report counts, bytes and a sample payload; send nothing');
  importRunOptions(command);
  command.action(run);
}
