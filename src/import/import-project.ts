/**
 * The import use cases: `importProject` sends the staged events not yet delivered to a
 * project, as a recorded run; `dryRunImport` builds the chunks it would send and sends nothing.
 * Both pass the same safety rules first.
 */
import type { MigrateConfig } from '../config/config-schema.js';
import { configPath } from '../config/load-config.js';
import type { IngestionTarget } from '../config/resolve-project.js';
import { recordedSettings, resolveSettings, type DeliverySettings, type GivenSettings } from '../delivery/delivery-options.js';
import { preflightImport } from '../doctor/preflight.js';
import type { Reporter } from '../reporter.js';
import { findProjectRecord } from '../staging/delivery-store.js';
import { startRun } from '../staging/import-runs.js';
import type { StagingStore } from '../staging/staging-store.js';
import { systemClock, type Clock } from '../util/clock.js';
import { dryRun, type DryRunReport } from './dry-run.js';
import { bindForRun, executeRun } from './import-run.js';
import { checkBinding, checkSharedProject, checkTestFirst, importFailure, loadTarget, nextStepAfter, openForImport } from './import-target.js';
import { checkStagedRules, prepareSendOrder, warnUnlocatedRows } from './ingestion-checks.js';
import type { RunResult } from './run-summary.js';

export interface ImportInput {
  staging: string;
  /** --config as typed. */
  config?: string;
  project: string;
  sample?: number;
  skipTestFirst: boolean;
  /** --skip-preflight: send without the preflight checks (recorded in the staging file). */
  skipPreflight?: boolean;
  /** Send the project's dead letters again (after their cause was fixed); recorded with the run. */
  retryDeadLetters?: boolean;
  /** The delivery options given (see delivery-options.ts); recorded with the run. */
  given: GivenSettings;
}

interface Prepared {
  file: string;
  config: MigrateConfig;
  target: IngestionTarget;
  keySource: string;
  store: StagingStore;
  settings: DeliverySettings;
}

/** Config, key, staging lock and the safety rules; then `work`, with the staging file closed after it. */
async function withPreparedImport<T>(input: ImportInput, reporter: Reporter, work: (prepared: Prepared) => Promise<T>): Promise<T> {
  const file = configPath(input.config);
  const { config, target, keySource } = loadTarget(file, input.project);
  checkSharedProject(config, target);
  const store = openForImport(input.staging, 'import', reporter);
  try {
    checkBinding(store, target);
    checkTestFirst(store, config, target, input.skipTestFirst, file);
    const settings = resolveSettings(target.host, input.given);
    return await work({ file, config, target, keySource, store, settings });
  } catch (error) {
    throw importFailure(store, target.name, error);
  } finally {
    store.close();
  }
}

/**
 * Sends the pending events as a recorded run and returns its summary. A run that does not
 * finish (interrupted, or stopped by the server) throws an UnfinishedRunError with its summary.
 */
export function importProject(input: ImportInput, reporter: Reporter, signal: AbortSignal, clock: Clock = systemClock): Promise<RunResult> {
  return withPreparedImport(input, reporter, async ({ file, config, target, keySource, store, settings }) => {
    checkStagedRules(store, target.name, settings, clock);
    const checked = await preflightImport({ store, config, configFile: file, target, settings, skip: input.skipPreflight === true }, reporter, signal, clock);
    // The preflight's ingestion-rules check says it when it runs; after the first chunk it does not.
    if (!checked) warnUnlocatedRows(store, target.name, reporter);
    prepareSendOrder(store, settings, reporter);
    const run = bindForRun(
      store,
      target,
      reporter,
      (projectId) => startRun(store, { projectId, sample: input.sample, skipTestFirst: input.skipTestFirst, settings: recordedSettings(input.given), configPath: file }),
      input.retryDeadLetters === true,
    );
    return executeRun({ store, target, keySource, ...run, settings, next: (place) => nextStepAfter(store, config, target, place), reporter, signal, clock });
  });
}

/** What a run would send: counts, bytes and a sample payload. Records nothing, sends nothing. */
export function dryRunImport(input: ImportInput, reporter: Reporter): Promise<DryRunReport> {
  return withPreparedImport(input, reporter, async ({ target, store, settings }) => {
    checkStagedRules(store, target.name, settings, systemClock);
    return dryRun(store, target, findProjectRecord(store, target.name), settings, input.sample);
  });
}
