/**
 * The safety rules an import must pass before anything is sent, as pure functions returning a
 * problem sentence (or undefined), plus the exact resume command printed when a run stops.
 */

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
 * delivered the binding may still change (a wrong host that never answered is fixable).
 */
export function bindingProblem(bound: BoundProject | undefined, target: ImportTarget): string | undefined {
  if (bound === undefined || bound.delivered + bound.deadLetters === 0) return undefined;
  if (bound.host !== target.host) {
    return `project "${target.name}" of this staging file was imported to ${bound.host}, but the config now points it to ${target.host}`;
  }
  if (bound.role !== target.role) {
    return `project "${target.name}" of this staging file was imported as a ${bound.role} project, but the config now says ${target.role}`;
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

/** Quotes a shell word only when needed, so the printed command can be pasted as is. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

export function resumeCommand(staging: string, project: string): string {
  return `migrate resume --staging ${shellWord(staging)} --project ${shellWord(project)}`;
}
