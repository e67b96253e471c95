/** `migrate resume [--project <name>]`: continues the most recent unfinished import (or that project's). */
import type { Command } from 'commander';
import { givenSettings, importRunOptions } from '../../options/delivery-flags.js';
import { refuseMisplacedGeoip } from '../../options/geoip-option.js';
import { stagingLogPath } from '../../terminal/interrupts.js';
import { withTerminal } from '../../terminal/terminal-reporter.js';
import { presentUnfinished } from '../import/run-output.js';
import { toResumeInput, type ResumeOptions } from './resume-input.js';
import { presentResume } from './resume-output.js';

async function run(options: ResumeOptions, command: Command): Promise<void> {
  refuseMisplacedGeoip(command.opts(), 'resume');
  const input = toResumeInput(options, givenSettings(command));
  const json = options.json === true;
  // Loaded on use: the delivery stack (undici, zlib) would slow every other command's start.
  const { resumeImport } = await import('../../../import/resume-import.js');
  const result = await withTerminal({ quiet: options.quiet === true || json, interrupts: true, log: { file: stagingLogPath(options.staging), command: 'resume' } }, (reporter, signal) =>
    resumeImport(input, reporter, signal),
  ).catch(presentUnfinished(json, { staging: options.staging, config: options.config }));
  presentResume(result, json, { staging: options.staging, config: options.config });
}

export function registerResume(program: Command): void {
  const command = program
    .command('resume')
    .description("continue the most recent unfinished import (or that project's), with its options")
    .option('--project <name>', 'resume the import into this project');
  importRunOptions(command);
  command.action(run);
}
