/** A management command suggested in a message, pasteable: with the project's --project and, when not the default, --config. */
import type { ManagementTarget } from '../config/resolve-project.js';
import { migrateCommand } from '../util/migrate-command.js';
import { shellWord } from '../util/shell-word.js';

/** The project a management command ran for; `undefined` when unknown (a placeholder is shown). */
export type CommandTarget = Pick<ManagementTarget, 'name' | 'configFile'> | undefined;

export function projectCommand(args: string, target: CommandTarget): string {
  return migrateCommand(`${args} --project ${target === undefined ? '<name>' : shellWord(target.name)}`, { config: target?.configFile });
}
