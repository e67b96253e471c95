/** `migrate resume [--project <name>]`: continues the most recent unfinished import. */
import type { Command } from 'commander';
import type { ConfigOptions, StagingOptions } from '../cli/common-options.js';
import { givenSettings, importRunOptions } from '../import/import-settings.js';

interface ResumeOptions extends StagingOptions, ConfigOptions {
  project?: string;
  quiet?: boolean;
  json?: boolean;
}

export function registerResume(program: Command): void {
  const command = program
    .command('resume')
    .description("continue the most recent unfinished import (or that project's), with its options")
    .option('--project <name>', 'resume the import into this project');
  importRunOptions(command);
  command.action(async (options: ResumeOptions, cmd: Command) => {
    // Loaded on use: the delivery stack (undici, zlib) would slow every other command's start.
    const { resumeImport } = await import('../import/import-flow.js');
    await resumeImport({
      staging: options.staging,
      config: options.config,
      project: options.project,
      given: givenSettings(cmd),
      quiet: options.quiet === true,
      json: options.json === true,
    });
  });
}
