/**
 * A migrate command printed for the user to run next (a hint, a "Next:" line, the log beside
 * the staging file). It must work when pasted, so it names the staging file and the config
 * when they are not the defaults, as absolute paths (the log is read from anywhere), quoted
 * for the shell.
 */
import { resolve } from 'node:path';
import { shellWord } from './shell-word.js';

export const DEFAULT_STAGING_FILE = './migration.db';
export const DEFAULT_CONFIG_FILE = 'migrate.config.json';

/** The staging file and config file a command used, in any form (relative or absolute). */
export interface CommandPlace {
  staging?: string;
  config?: string | null;
}

/** The path to name with a flag, or undefined when it is the default (resolved against the working directory). */
function unlessDefault(path: string | null | undefined, defaultPath: string): string | undefined {
  if (path === undefined || path === null) return undefined;
  const absolute = resolve(path);
  return absolute === resolve(defaultPath) ? undefined : absolute;
}

/**
 * The command registry, the one list of migrate's commands in help order, with the files each
 * takes. The shell (cli/program.ts) maps each name to the module that registers it; a test
 * checks the flags against the program.
 */
export const MIGRATE_COMMANDS = [
  { name: 'export-source', staging: true, config: true },
  { name: 'identify-users', staging: true, config: false },
  { name: 'identify-groups', staging: true, config: false },
  { name: 'doctor', staging: true, config: true },
  { name: 'import', staging: true, config: true },
  { name: 'resume', staging: true, config: true },
  { name: 'status', staging: true, config: false },
  { name: 'verify', staging: true, config: true },
  { name: 'rejects', staging: true, config: false },
  { name: 'sandbox', staging: false, config: false },
  { name: 'projects', staging: false, config: true },
  { name: 'group-types', staging: false, config: true },
  { name: 'members', staging: false, config: true },
  { name: 'exports', staging: false, config: true },
  { name: 'copy-config', staging: true, config: true },
  { name: 'groups', staging: false, config: true },
] as const;

export type MigrateCommandName = (typeof MIGRATE_COMMANDS)[number]['name'];

/** The commands that take --staging. */
export const STAGING_COMMANDS: ReadonlySet<string> = new Set(MIGRATE_COMMANDS.filter((c) => c.staging).map((c) => c.name));
/** The commands that take --config. */
export const CONFIG_COMMANDS: ReadonlySet<string> = new Set(MIGRATE_COMMANDS.filter((c) => c.config).map((c) => c.name));

/**
 * `migrate <args>` plus `--staging <file>` and `--config <file>` when not the defaults and the
 * command takes them. `args` are already shell words (quote names with shellWord), so
 * placeholders such as `<name>` pass.
 */
export function migrateCommand(args: string, place: CommandPlace = {}): string {
  const command = args.split(' ')[0]!;
  const staging = STAGING_COMMANDS.has(command) ? unlessDefault(place.staging, DEFAULT_STAGING_FILE) : undefined;
  const config = CONFIG_COMMANDS.has(command) ? unlessDefault(place.config, DEFAULT_CONFIG_FILE) : undefined;
  return [`migrate ${args}`, staging && `--staging ${shellWord(staging)}`, config && `--config ${shellWord(config)}`].filter(Boolean).join(' ');
}
