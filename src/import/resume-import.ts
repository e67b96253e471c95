/** The resume use case: continues the most recent unfinished import (or that project's) with its own options. */
import { configPath } from '../config/load-config.js';
import { mergeSettings, resolveSettings, type GivenSettings } from '../delivery/delivery-options.js';
import type { Reporter } from '../reporter.js';
import { bindProject } from '../staging/delivery-store.js';
import { latestUnfinishedRun, reopenRun } from '../staging/import-runs.js';
import { systemClock, type Clock } from '../util/clock.js';
import { executeRun } from './import-run.js';
import { checkBinding, loadTarget, nextStep, openForImport } from './import-target.js';
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

/** Every import finished (or the named project's did): there is nothing to resume. */
export interface NothingToResume {
  type: 'nothing-to-resume';
  project?: string;
}

export type ResumeResult = NothingToResume | ({ type: 'resumed' } & RunResult);

/** Resumes the run; like importProject, a run that does not finish throws an UnfinishedRunError. */
export async function resumeImport(input: ResumeInput, reporter: Reporter, signal: AbortSignal, clock: Clock = systemClock): Promise<ResumeResult> {
  const store = openForImport(input.staging, 'resume', reporter);
  try {
    const run = latestUnfinishedRun(store, input.project);
    if (run === undefined) return { type: 'nothing-to-resume', project: input.project };
    const file = input.config !== undefined ? configPath(input.config) : (run.configPath ?? configPath(undefined));
    const { config, target, keySource } = loadTarget(file, run.project);
    checkBinding(store, target);
    const settings = resolveSettings(target.host, mergeSettings(run.settings, input.given));
    const project = bindProject(store, target);
    reopenRun(store, run.id);
    reporter.notice(`Resuming the import into ${run.project} started ${run.startedAt} (${run.delivered} events delivered by it so far).`);
    const result = await executeRun({ store, target, keySource, project, run, settings, next: nextStep(config, target), reporter, signal, clock });
    return { type: 'resumed', ...result };
  } finally {
    store.close();
  }
}
