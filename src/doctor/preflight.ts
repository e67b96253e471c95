/**
 * Import's preflight: before the first chunk of a project, `migrate doctor`'s checks run on
 * their own, once per staging file and project (recorded, with `--skip-preflight` when given).
 * Warnings are shown and the import goes on; a problem stops it before anything is sent.
 */
import type { MigrateConfig } from '../config/config-schema.js';
import type { IngestionTarget } from '../config/resolve-project.js';
import { retryPolicy, type DeliverySettings } from '../delivery/delivery-options.js';
import { PreflightError } from '../errors.js';
import { shellWord } from '../import/import-rules.js';
import type { Reporter } from '../reporter.js';
import { findProjectRecord } from '../staging/delivery-store.js';
import { recordPreflight, settledPreflight } from '../staging/preflights.js';
import type { StagingStore } from '../staging/staging-store.js';
import type { Clock } from '../util/clock.js';
import { plural } from '../util/format.js';
import { migrateCommand } from '../util/migrate-command.js';
import type { DoctorReport } from './check-result.js';
import { gatherFacts } from './gather/gather-facts.js';
import { runChecks } from './run-checks.js';

export interface PreflightInput {
  store: StagingStore;
  config: MigrateConfig;
  /** The config's path, named in the doctor command suggested when it is not the default. */
  configFile?: string;
  target: IngestionTarget;
  /** The import's settings: its retry policy and request timeout serve the preflight's requests too. */
  settings: DeliverySettings;
  /** --skip-preflight: bypass it, and record that. */
  skip: boolean;
}

/** Whether this import is the project's first: nothing delivered yet, and no preflight passed or skipped. */
function due(store: StagingStore, target: IngestionTarget): boolean {
  const project = findProjectRecord(store, target.name);
  if (project !== undefined && project.delivered + project.deadLetters > 0) return false;
  return settledPreflight(store, target.name, target.host) === undefined;
}

function record(store: StagingStore, report: DoctorReport): void {
  const checks = report.checks.map(({ check, verdict, message }) => ({ check, verdict, message }));
  recordPreflight(store, { project: report.project, host: report.host, outcome: report.problems > 0 ? 'failed' : 'passed', problems: report.problems, warnings: report.warnings, checks });
}

/**
 * Runs the preflight when due; throws a PreflightError (exit 10) when it finds a problem.
 * Returns whether its checks ran (and so said their warnings).
 */
export async function preflightImport(input: PreflightInput, reporter: Reporter, signal: AbortSignal, clock: Clock): Promise<boolean> {
  const { store, target } = input;
  if (!due(store, target)) return false;
  if (input.skip) {
    recordPreflight(store, { project: target.name, host: target.host, outcome: 'skipped', problems: 0, warnings: 0, checks: [] });
    reporter.warn(`${target.name}: preflight skipped (--skip-preflight); recorded in the staging file`);
    return false;
  }
  reporter.progress(`${target.name}: preflight (the checks of migrate doctor)`);
  const policy = retryPolicy(input.settings);
  const facts = await gatherFacts({ config: input.config, target, store, stagingPath: store.path, policy, timeoutMs: input.settings.requestTimeoutMs, clock, signal });
  const report = runChecks(facts);
  for (const check of report.checks) {
    if (check.verdict !== 'ok') reporter.warn(`${target.name}: preflight ${check.verdict} (${check.check}): ${check.message}${check.fix !== undefined ? `\n  ${check.fix}` : ''}`);
  }
  record(store, report);
  if (report.problems === 0) return true;
  throw new PreflightError(`the preflight of project "${target.name}" found ${plural(report.problems, 'problem')}; nothing was sent`, [
    `Full report: ${migrateCommand(`doctor --project ${shellWord(target.name)}`, { staging: store.path, config: input.configFile })}`,
    'To send anyway, at your own risk: --skip-preflight (recorded in the staging file).',
  ]);
}
