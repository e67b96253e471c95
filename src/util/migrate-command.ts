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

/** The commands that take --staging (a test checks these against the program). */
export const STAGING_COMMANDS: ReadonlySet<string> = new Set(['export-source', 'identify-users', 'identify-groups', 'doctor', 'import', 'resume', 'status', 'verify', 'rejects', 'copy-config']);
/** The commands that take --config. */
export const CONFIG_COMMANDS: ReadonlySet<string> = new Set(['export-source', 'doctor', 'import', 'resume', 'verify', 'projects', 'group-types', 'members', 'exports', 'groups', 'copy-config']);

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
