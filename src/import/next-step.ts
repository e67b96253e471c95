/**
 * The "Next:" line after an import, from the state of the staging file rather than from the
 * command just run: the rest of a sample, dead letters to look at, production after a complete
 * test, `verify` after a complete production import. Pure.
 */
import { plural } from '../util/format.js';
import { migrateCommand, type CommandPlace } from '../util/migrate-command.js';
import { shellWord } from '../util/shell-word.js';

export interface ProjectProgress {
  name: string;
  role: 'test' | 'production';
  /** Events of the staging file this project has not settled (neither delivered nor dead-lettered). */
  pending: number;
  delivered: number;
  deadLetters: number;
}

function complete(p: ProjectProgress): boolean {
  return p.pending === 0 && p.deadLetters === 0 && p.delivered > 0;
}

/**
 * What to do after a finished run into `current`; `projects` are the config's projects with
 * their state in the staging file (those never imported have everything pending); the commands
 * suggested name the staging file and config of `place` when they are not the defaults.
 */
export function nextStep(current: ProjectProgress, projects: readonly ProjectProgress[], place: CommandPlace = {}): string | undefined {
  const name = shellWord(current.name);
  const command = (args: string): string => migrateCommand(args, place);
  if (current.pending > 0) return `${command(`import --project ${name}`)} (${plural(current.pending, 'event')} still pending)`;
  if (current.deadLetters > 0) {
    return `look at the dead letters (\`${command('status')}\`); once their cause is fixed, send them again: ${command(`import --project ${name} --retry-dead-letters`)}`;
  }
  if (current.role === 'test') {
    const production = projects.find((p) => p.role === 'production' && !complete(p));
    if (production !== undefined) return command(`import --project ${shellWord(production.name)}`);
    const done = projects.find((p) => p.role === 'production');
    return done === undefined ? undefined : command(`verify --project ${shellWord(done.name)}`);
  }
  return command(`verify --project ${name}`);
}
