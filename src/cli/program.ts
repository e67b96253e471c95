/**
 * The command tree. Each command registers itself from its own folder in src/cli/commands.
 * Only the command being run is loaded (each pulls in its own stack: SQLite, undici, ora), so
 * a run starts quickly; `--help` or an unknown name load them all, `--version` none.
 */
import { Command, type OutputConfiguration } from 'commander';
import { standardStreams } from '../util/standard-streams.js';
import { VERSION } from '../version.js';
import { MIGRATE_COMMANDS, type MigrateCommandName } from '../util/migrate-command.js';
import { checkRequiredAfterUnknown } from './options/required-options.js';

export { VERSION };

type Register = (program: Command) => void;

const loadIdentify = async (): Promise<Register> => (await import('./commands/identify/identify-command.js')).registerIdentify;

/** The module that registers each command of the registry (util/migrate-command.ts); identify registers both of its commands. */
const LOADERS: Readonly<Record<MigrateCommandName, () => Promise<Register>>> = {
  'export-source': async () => (await import('./commands/export-source/export-source-command.js')).registerExportSource,
  'identify-users': loadIdentify,
  'identify-groups': loadIdentify,
  doctor: async () => (await import('./commands/doctor/doctor-command.js')).registerDoctor,
  import: async () => (await import('./commands/import/import-command.js')).registerImport,
  resume: async () => (await import('./commands/resume/resume-command.js')).registerResume,
  status: async () => (await import('./commands/status/status-command.js')).registerStatus,
  verify: async () => (await import('./commands/verify/verify-command.js')).registerVerify,
  rejects: async () => (await import('./commands/rejects/rejects-command.js')).registerRejects,
  sandbox: async () => (await import('./commands/sandbox/sandbox-command.js')).registerSandbox,
  projects: async () => (await import('./commands/projects/projects-command.js')).registerProjects,
  'group-types': async () => (await import('./commands/group-types/group-types-command.js')).registerGroupTypes,
  members: async () => (await import('./commands/members/members-command.js')).registerMembers,
  exports: async () => (await import('./commands/exports/exports-command.js')).registerExports,
  'copy-config': async () => (await import('./commands/copy-config/copy-config-command.js')).registerCopyConfig,
  groups: async () => (await import('./commands/groups/groups-command.js')).registerGroups,
};

/** Commander's help and errors go to the run's streams (the process's own, unless a test runs the program in-process). */
function commanderOutput(): OutputConfiguration {
  // As commander's own default: the terminal's width, or none (its 80 columns) off a terminal.
  const width = (stream: NodeJS.WriteStream): number => (stream.isTTY ? stream.columns : undefined) as number;
  return {
    writeOut: (text: string) => standardStreams().stdout.write(text),
    writeErr: (text: string) => standardStreams().stderr.write(text),
    getOutHelpWidth: () => width(standardStreams().stdout),
    getErrHelpWidth: () => width(standardStreams().stderr),
  };
}

/** Builds the program for `argv` (process.argv: node, script, command, ...). */
export async function buildProgram(argv: readonly string[] = process.argv): Promise<Command> {
  const program = new Command('migrate')
    .description('Move past analytics events into PostHog: safely, once, and fast.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput(commanderOutput());
  const named = MIGRATE_COMMANDS.filter((command) => command.name === argv[2]);
  // `--version` alone needs no command: loading them all would cost it about 60 MB and a second.
  const versionOnly = argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V');
  const loaders = new Set(versionOnly ? [] : (named.length > 0 ? named : MIGRATE_COMMANDS).map((command) => LOADERS[command.name]));
  for (const load of loaders) (await load())(program);
  checkRequiredAfterUnknown(program);
  return program;
}
