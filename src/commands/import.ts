/** `migrate import --project <name>`: sends the staged events not yet delivered to that project. */
import type { Command } from 'commander';
import { integerOption, type ConfigOptions, type StagingOptions } from '../cli/common-options.js';
import { givenSettings, importRunOptions } from '../import/import-settings.js';

interface ImportOptions extends StagingOptions, ConfigOptions {
  project: string;
  sample?: number;
  skipTestFirst?: boolean;
  dryRun?: boolean;
  quiet?: boolean;
  json?: boolean;
}

export function registerImport(program: Command): void {
  const command = program
    .command('import')
    .description('send staged events to a project (resumable; checkpoint after every accepted chunk)')
    .requiredOption('--project <name>', 'project name from the config')
    .option('--sample <n>', 'send at most n events (a rehearsal on a test project)', integerOption('--sample', 1))
    .option('--skip-test-first', 'import into a production project before any test import (recorded in the staging file)')
    .option('--dry-run', 'build the chunks and report counts, bytes and a sample payload; send nothing');
  importRunOptions(command);
  command.action(async (options: ImportOptions, cmd: Command) => {
    // Loaded on use: the delivery stack (undici, zlib) would slow every other command's start.
    const { importProject } = await import('../import/import-flow.js');
    await importProject({
      staging: options.staging,
      config: options.config,
      project: options.project,
      sample: options.sample,
      skipTestFirst: options.skipTestFirst === true,
      dryRun: options.dryRun === true,
      given: givenSettings(cmd),
      quiet: options.quiet === true,
      json: options.json === true,
    });
  });
}
