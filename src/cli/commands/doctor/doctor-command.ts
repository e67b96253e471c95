/** `migrate doctor --project <name>`: the preflight checks, one line each; exit 10 when one finds a problem. */
import type { Command } from 'commander';
import { PreflightError } from '../../../errors.js';
import { plural } from '../../../util/format.js';
import { bucketFlags, toBucketInput, type BucketFlags } from '../../options/bucket-options.js';
import { collect, configOption, jsonOption, quietOption, stagingOption, type ConfigOptions, type StagingOptions } from '../../options/common-options.js';
import { withTerminal } from '../../terminal/terminal-reporter.js';
import { presentDoctor } from './doctor-output.js';

interface DoctorOptions extends StagingOptions, ConfigOptions, BucketFlags {
  project: string;
  start?: string;
  end?: string;
  source: string[];
  from?: string;
  quiet?: boolean;
  json?: boolean;
}

async function run(options: DoctorOptions): Promise<void> {
  const json = options.json === true;
  // Loaded on use: the HTTP stack would slow every other command's start.
  const { runDoctor } = await import('../../../doctor/doctor.js');
  const buckets = toBucketInput(options.source, options, process.env);
  const sources = buckets === undefined ? undefined : { addresses: options.source, format: options.from ?? 'jsonl', ...buckets };
  const input = { project: options.project, config: options.config, staging: options.staging, start: options.start, end: options.end, ...(sources === undefined ? {} : { sources }) };
  const report = await withTerminal({ quiet: options.quiet === true || json, interrupts: true }, (reporter, signal) => runDoctor(input, reporter, signal));
  presentDoctor(report, json);
  if (report.problems > 0) throw new PreflightError(`doctor found ${plural(report.problems, 'problem')} with project "${report.project}"; see above`);
}

export function registerDoctor(program: Command): void {
  const command = program
    .command('doctor')
    .description("check the host, the keys, the personal key's scopes, the machine, the data and billing before sending anything")
    .requiredOption('--project <name>', 'project name from the config')
    .option('--start <day|hour>', 'a source project (personal key, no project key): first day or hour to count events in')
    .option('--end <day|hour>', 'a source project: last day or hour to count events in')
    .option('--source <address>', 's3:// or gs:// source to check: listed, its first object read, the staging space its objects need (repeatable)', collect, [] as string[])
    .option('--from <format>', '--source: the format whose file names are read under a prefix (default jsonl)');
  bucketFlags(command);
  stagingOption(command);
  configOption(command);
  quietOption(command);
  jsonOption(command);
  command.action(run);
}
