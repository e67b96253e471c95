/**
 * The command tree. Each command registers itself from its own folder in src/cli/commands.
 * Only the command being run is loaded (each pulls in its own stack: SQLite, undici, ora), so
 * a run starts quickly; `--help`, `--version` or an unknown name load them all.
 */
import { Command, type OutputConfiguration } from 'commander';
import { standardStreams } from '../util/standard-streams.js';
import { VERSION } from '../version.js';
import { checkRequiredAfterUnknown } from './options/required-options.js';

export { VERSION };

type Register = (program: Command) => void;

/** Command names, in help order, with the module that registers them. */
const COMMANDS: ReadonlyArray<{ names: readonly string[]; load: () => Promise<Register> }> = [
  { names: ['export-source'], load: async () => (await import('./commands/export-source/export-source-command.js')).registerExportSource },
  { names: ['identify-users', 'identify-groups'], load: async () => (await import('./commands/identify/identify-command.js')).registerIdentify },
  { names: ['doctor'], load: async () => (await import('./commands/doctor/doctor-command.js')).registerDoctor },
  { names: ['import'], load: async () => (await import('./commands/import/import-command.js')).registerImport },
  { names: ['resume'], load: async () => (await import('./commands/resume/resume-command.js')).registerResume },
  { names: ['status'], load: async () => (await import('./commands/status/status-command.js')).registerStatus },
  { names: ['verify'], load: async () => (await import('./commands/verify/verify-command.js')).registerVerify },
  { names: ['rejects'], load: async () => (await import('./commands/rejects/rejects-command.js')).registerRejects },
  { names: ['sandbox'], load: async () => (await import('./commands/sandbox/sandbox-command.js')).registerSandbox },
  { names: ['projects'], load: async () => (await import('./commands/projects/projects-command.js')).registerProjects },
  { names: ['group-types'], load: async () => (await import('./commands/group-types/group-types-command.js')).registerGroupTypes },
  { names: ['members'], load: async () => (await import('./commands/members/members-command.js')).registerMembers },
  { names: ['exports'], load: async () => (await import('./commands/exports/exports-command.js')).registerExports },
  { names: ['groups'], load: async () => (await import('./commands/groups/groups-command.js')).registerGroups },
];

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
  const named = COMMANDS.filter((command) => command.names.includes(argv[2] ?? ''));
  for (const command of named.length > 0 ? named : COMMANDS) (await command.load())(program);
  checkRequiredAfterUnknown(program);
  return program;
}
