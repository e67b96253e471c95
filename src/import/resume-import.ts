/** The resume use case: continues the most recent unfinished import (or that project's) with its own options. */
import { configPath, loadConfig } from '../config/load-config.js';
import { mergeSettings, resolveSettings, type GivenSettings } from '../delivery/delivery-options.js';
import { UsageError } from '../errors.js';
import type { Reporter } from '../reporter.js';
import { findProjectRecord, listProjectRecords } from '../staging/delivery-store.js';
import { latestRuns, latestUnfinishedRun, reopenRun } from '../staging/import-runs.js';
import type { StagingStore } from '../staging/staging-store.js';
import { systemClock, type Clock } from '../util/clock.js';
import { plural } from '../util/format.js';
import { migrateCommand } from '../util/migrate-command.js';
import { shellWord } from '../util/shell-word.js';
import { bindForRun, executeRun } from './import-run.js';
import { checkBinding, checkSharedProject, importFailure, loadTarget, nextStepAfter, openForImport } from './import-target.js';
import { checkStagedRules, prepareSendOrder, warnUnlocatedRows } from './ingestion-checks.js';
import type { RunResult } from './run-summary.js';

export interface ResumeInput {
  staging: string;
  /** --config as typed; otherwise the config the run was started with. */
  config?: string;
  /** Resume this project's run rather than the most recent. */
  project?: string;
  /** Delivery options given now; they override the run's recorded ones. */
  given: GivenSettings;
}

/** Every import finished (or the named project's did, or none was ever started): there is nothing to resume. */
export interface NothingToResume {
  type: 'nothing-to-resume';
  project?: string;
  /** Why: the last import finished, or no import (of the named project) was ever started from this staging file. */
  reason: 'finished' | 'never-imported';
  /** What to say, as printed (also in --json). */
  message: string;
}

export type ResumeResult = NothingToResume | ({ type: 'resumed' } & RunResult);

/** Project names this resume may be about: the staging file's and the config's (when it can be read). */
function knownProjects(store: StagingStore, config: string | undefined): string[] {
  const names = new Set(listProjectRecords(store).map((p) => p.name));
  const file = config ?? latestRuns(store).at(-1)?.configPath ?? configPath(undefined);
  try {
    for (const name of Object.keys(loadConfig(file).projects)) names.add(name);
  } catch {
    // No readable config: the staging file's names are all we know.
  }
  return [...names];
}

function nothingToResume(store: StagingStore, input: ResumeInput): NothingToResume {
  if (input.project === undefined) {
    // An import stopped during its checks (before its first request) records no run: nothing of it is left to resume.
    if (latestRuns(store).length > 0) return { type: 'nothing-to-resume', reason: 'finished', message: 'Nothing to resume: every import finished.' };
    return {
      type: 'nothing-to-resume',
      reason: 'never-imported',
      message: `Nothing to resume: no import was started from this staging file (one stopped during its checks, before sending, has left nothing to resume; start with \`${migrateCommand('import --project <name>', { staging: store.path, config: input.config })}\`).`,
    };
  }
  const known = knownProjects(store, input.config);
  if (!known.includes(input.project)) {
    throw new UsageError(`no project named "${input.project}" in the staging file or the config`, [
      known.length > 0 ? `Known projects: ${known.join(', ')}.` : 'No project was imported from this staging file yet.',
    ]);
  }
  if (findProjectRecord(store, input.project) === undefined || latestRuns(store).every((r) => r.project !== input.project)) {
    return {
      type: 'nothing-to-resume',
      project: input.project,
      reason: 'never-imported',
      message: `Nothing to resume for project ${input.project}: it was never imported from this staging file (start with \`${migrateCommand(`import --project ${shellWord(input.project)}`, { staging: store.path, config: input.config })}\`).`,
    };
  }
  return { type: 'nothing-to-resume', project: input.project, reason: 'finished', message: `Nothing to resume for project ${input.project}: its last import finished.` };
}

/** Resumes the run; like importProject, a run that does not finish throws an UnfinishedRunError. */
export async function resumeImport(input: ResumeInput, reporter: Reporter, signal: AbortSignal, clock: Clock = systemClock): Promise<ResumeResult> {
  const store = openForImport(input.staging, 'resume', reporter);
  let project = input.project;
  try {
    const unfinished = latestUnfinishedRun(store, input.project);
    if (unfinished === undefined) return nothingToResume(store, input);
    const file = input.config !== undefined ? configPath(input.config) : (unfinished.configPath ?? configPath(undefined));
    project = unfinished.project;
    const { config, target, keySource } = loadTarget(file, unfinished.project);
    checkSharedProject(config, target);
    checkBinding(store, target);
    const settings = resolveSettings(target.host, mergeSettings(unfinished.settings, input.given));
    checkStagedRules(store, target.name, settings, clock);
    warnUnlocatedRows(store, target.name, reporter);
    prepareSendOrder(store, settings, reporter);
    const bound = bindForRun(
      store,
      target,
      reporter,
      () => {
        reopenRun(store, unfinished.id);
        return unfinished;
      },
      false,
    );
    const run = bound.run;
    reporter.notice(`Resuming the import into ${run.project} started ${run.startedAt} (${plural(run.delivered, 'event')} delivered by it so far).`);
    const result = await executeRun({ store, target, keySource, project: bound.project, run, settings, next: (place) => nextStepAfter(store, config, target, place), reporter, signal, clock });
    return { type: 'resumed', ...result };
  } catch (error) {
    throw project === undefined ? store.failure(error) : importFailure(store, project, error);
  } finally {
    store.close();
  }
}
