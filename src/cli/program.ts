/** The command tree. Each command registers itself from its own file in src/commands. */
import { Command } from 'commander';
import { registerExportSource } from '../commands/export-source.js';
import { registerIdentify } from '../commands/identify.js';
import { registerExports } from '../commands/exports.js';
import { registerGroupTypes } from '../commands/group-types.js';
import { registerGroups } from '../commands/groups.js';
import { registerMembers } from '../commands/members.js';
import { registerProjects } from '../commands/projects.js';
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
  registerIdentify(program);
  registerImport(program);
  registerResume(program);
  registerStatus(program);
  registerRejects(program);
  registerSandbox(program);
  registerProjects(program);
  registerGroupTypes(program);
  registerMembers(program);
  registerExports(program);
  registerGroups(program);
  return program;
}
