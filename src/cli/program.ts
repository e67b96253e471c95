/** The command tree. Each command registers itself from its own file in src/commands. */
import { Command } from 'commander';
import { registerExportSource } from '../commands/export-source.js';
import { registerImport } from '../commands/import.js';
import { registerRejects } from '../commands/rejects.js';
import { registerResume } from '../commands/resume.js';
import { registerSandbox } from '../commands/sandbox.js';
import { registerStatus } from '../commands/status.js';
import { VERSION } from '../version.js';

export { VERSION };

export function buildProgram(): Command {
  const program = new Command('migrate')
    .description('Move past analytics events into PostHog: safely, once, and fast.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerExportSource(program);
  registerImport(program);
  registerResume(program);
  registerStatus(program);
  registerRejects(program);
  registerSandbox(program);
  return program;
}
