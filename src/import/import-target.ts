/**
 * What import and resume share before anything is sent: the config and the project's key,
 * the staging file opened under its lock, and the safety rules (host binding, test before
 * production) as errors that say what to do.
 */
import type { MigrateConfig } from '../config/config-schema.js';
import { loadConfig } from '../config/load-config.js';
import { findProject, resolveIngestion, type IngestionTarget } from '../config/resolve-project.js';
import { RefusedError } from '../errors.js';
import type { Reporter } from '../reporter.js';
import { acceptedTestProjects, findProjectRecord } from '../staging/delivery-store.js';
import { rangeName, recoverInterruptedRanges } from '../staging/source-ranges.js';
import { recoverInterruptedReads } from '../staging/source-reads.js';
import { StagingStore } from '../staging/staging-store.js';
import { bindingProblem, shellWord, testFirstProblem } from './import-rules.js';

/** SQLite page cache of the import's writing connection, in MiB. */
const IMPORT_CACHE_MB = 32;

function keySource(config: MigrateConfig, name: string, file: string): string {
  const project = findProject(config, name);
  return project.apiKeyEnv !== undefined
    ? `the environment variable ${project.apiKeyEnv} (projects.${name}.apiKeyEnv in ${file})`
    : `projects.${name}.apiKey in ${file}`;
}

export function loadTarget(file: string, name: string): { config: MigrateConfig; target: IngestionTarget; keySource: string } {
  const config = loadConfig(file);
  return { config, target: resolveIngestion(config, name), keySource: keySource(config, name, file) };
}

export function openForImport(staging: string, command: string, reporter: Reporter): StagingStore {
  // A larger cache for the checkpoints: the deliveries they add go wherever seq falls, which is
  // all over the table when the source was not in time order.
  const store = StagingStore.open(staging, { mustExist: true, lockFor: command, cacheMb: IMPORT_CACHE_MB });
  // A source API range half fetched is undone first: half a range must never be sent.
  for (const range of recoverInterruptedRanges(store)) reporter.warn(`note: ${rangeName(range.source, range)} was interrupted while being fetched; its rows were removed (export-source fetches it again)`);
  for (const read of recoverInterruptedReads(store)) {
    reporter.warn(`note: an earlier ${read.command} of ${read.path} (started ${read.startedAt}) was interrupted; its partial rows were removed`);
  }
  return store;
}

export function checkBinding(store: StagingStore, target: IngestionTarget): void {
  const problem = bindingProblem(findProjectRecord(store, target.name), target);
  if (problem !== undefined) {
    throw new RefusedError(problem, [
      'Sending the rest elsewhere would split this migration across two projects.',
      'To import into another project, give it its own name in the config (and, to start over, a new staging file).',
    ]);
  }
}

export function checkTestFirst(store: StagingStore, config: MigrateConfig, target: IngestionTarget, override: boolean): void {
  const problem = testFirstProblem(target.role, acceptedTestProjects(store), override);
  if (problem === undefined) return;
  const test = Object.entries(config.projects).find(([, p]) => p.role === 'test')?.[0];
  throw new RefusedError(`${problem} (project "${target.name}" has role production)`, [
    test !== undefined
      ? `Rehearse first: migrate import --project ${shellWord(test)} --sample 1000`
      : 'Add a project with "role": "test" to the config (a separate PostHog project), and import into it first.',
    'Or override with --skip-test-first; the override is recorded in the staging file.',
  ]);
}

/** The next step after a complete test import, when the config names a production project. */
export function nextStep(config: MigrateConfig, target: IngestionTarget): string | undefined {
  if (target.role !== 'test') return undefined;
  const production = Object.entries(config.projects).find(([, p]) => p.role === 'production');
  return production ? `migrate import --project ${shellWord(production[0])}` : undefined;
}
