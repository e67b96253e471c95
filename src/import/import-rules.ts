/**
 * The safety rules an import must pass before anything is sent, as pure functions returning a
 * problem sentence (or undefined), plus the exact resume command printed when a run stops.
 */
import { hostKey } from '../config/hosts.js';
import { migrateCommand, type CommandPlace } from '../util/migrate-command.js';
import { shellWord } from '../util/shell-word.js';

export interface BoundProject {
  host: string;
  role: string;
  delivered: number;
  deadLetters: number;
}

export interface ImportTarget {
  name: string;
  role: string;
  host: string;
}

/**
 * A project name is bound to the host (and role) it first delivered to: pointing the name at
 * another server later would split one migration across two projects. Until something was
 * accepted the binding may still change: a wrong host that never answered, or one that refused
 * everything (dead letters are not acceptance), is fixable. Hosts are compared as places, not
 * strings: `localhost` and `127.0.0.1`, a trailing slash, a default port or a capital letter do
 * not make another host.
 */
export function bindingProblem(bound: BoundProject | undefined, target: ImportTarget): string | undefined {
  if (bound === undefined || bound.delivered === 0) return undefined;
  if (hostKey(bound.host) !== hostKey(target.host)) {
    return `project "${target.name}" of this staging file was imported to ${bound.host}, but the config now points it to ${target.host}`;
  }
  if (bound.role !== target.role) {
    return `project "${target.name}" of this staging file was imported as a ${bound.role} project, but the config now says ${target.role}`;
  }
  return undefined;
}

/** A project of the config as the shared-project rule sees it; the key is compared, never shown. */
export interface ConfiguredProject {
  name: string;
  role: string;
  host: string;
  /** The project API key, when it could be read (inline, or its environment variable is set). */
  apiKey?: string;
  projectId?: string;
}

/**
 * Test and production must be two PostHog projects: when a test project and a production
 * project of the config share a project key (or host and project id), a rehearsal would land
 * in production. Imports into either are refused; `doctor` reports the same sentence.
 */
export function sharedProjectProblem(target: string, projects: readonly ConfiguredProject[]): string | undefined {
  const self = projects.find((p) => p.name === target);
  if (self === undefined) return undefined;
  for (const other of projects) {
    if (other.name === self.name || other.role === self.role || (other.role !== 'test' && self.role !== 'test')) continue;
    const [test, prod] = self.role === 'test' ? [self, other] : [other, self];
    if (test.apiKey !== undefined && test.apiKey === prod.apiKey) {
      return `projects "${test.name}" (test) and "${prod.name}" (production) of the config have the same project API key: they are one PostHog project, so a rehearsal would land in production`;
    }
    if (test.projectId !== undefined && test.projectId === prod.projectId && hostKey(test.host) === hostKey(prod.host)) {
      return `projects "${test.name}" (test) and "${prod.name}" (production) of the config name the same PostHog project (${prod.host}, project ${prod.projectId}): a rehearsal would land in production`;
    }
  }
  return undefined;
}

/**
 * Test before production: a production import needs a test project that accepted at least part
 * of this staging file, unless the override is given (and then recorded).
 */
export function testFirstProblem(role: string, acceptedTests: ReadonlyArray<{ name: string }>, override: boolean): string | undefined {
  if (role !== 'production' || override || acceptedTests.length > 0) return undefined;
  return 'importing into a production project before any test project accepted part of this staging file';
}

export { shellWord };

/** The command that continues `project`'s import from the staging file and config of `place`. */
export function resumeCommand(place: CommandPlace, project: string): string {
  return migrateCommand(`resume --project ${shellWord(project)}`, place);
}
