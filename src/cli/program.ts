/** The command tree. Each command registers itself from its own file in src/commands. */
import { Command } from 'commander';
import { registerExportSource } from '../commands/export-source.js';
import { registerIdentify } from '../commands/identify.js';
import { registerExports } from '../commands/exports.js';
import { registerGroupTypes } from '../commands/group-types.js';
import { registerGroups } from '../commands/groups.js';
import { registerMembers } from '../commands/members.js';
import { registerProjects } from '../commands/projects.js';
import { registerRejects } from '../commands/rejects.js';
import { registerStatus } from '../commands/status.js';

export const VERSION = '0.1.0';

export function buildProgram(): Command {
  const program = new Command('migrate')
    .description('Move past analytics events into PostHog: safely, once, and fast.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerExportSource(program);
  registerIdentify(program);
  registerStatus(program);
  registerRejects(program);
  registerProjects(program);
  registerGroupTypes(program);
  registerMembers(program);
  registerExports(program);
  registerGroups(program);
  return program;
}
