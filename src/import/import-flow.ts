/**
 * `import` and `resume` from the top: config and key, the staging lock, the safety rules
 * (host binding, test before production), then a dry run or a recorded run.
 */
import { print, warn } from '../cli/output.js';
import type { MigrateConfig } from '../config/config-schema.js';
import { configPath, loadConfig } from '../config/load-config.js';
import { findProject, resolveIngestion, type IngestionTarget } from '../config/resolve-project.js';
import { RefusedError } from '../errors.js';
import { acceptedTestProjects, bindProject, findProjectRecord } from '../staging/delivery-store.js';
import { latestUnfinishedRun, reopenRun, startRun } from '../staging/import-runs.js';
import { recoverInterruptedReads } from '../staging/source-reads.js';
import { StagingStore } from '../staging/staging-store.js';
import { dryRun } from './dry-run.js';
import { executeRun } from './import-execution.js';
import { printDryRun } from './import-report.js';
import { bindingProblem, shellWord, testFirstProblem } from './import-rules.js';
import { recordedSettings, resolveSettings, type GivenSettings } from './import-settings.js';

/** SQLite page cache of the import's writing connection, in MiB. */
const IMPORT_CACHE_MB = 32;

export interface ImportInput {
  staging: string;
  /** --config as typed. */
  config?: string;
  project: string;
  sample?: number;
  skipTestFirst: boolean;
  dryRun: boolean;
  given: GivenSettings;
  quiet: boolean;
  json: boolean;
}

export interface ResumeInput {
  staging: string;
  config?: string;
  project?: string;
  given: GivenSettings;
  quiet: boolean;
  json: boolean;
}

function keySource(config: MigrateConfig, name: string, file: string): string {
  const project = findProject(config, name);
  return project.apiKeyEnv !== undefined
    ? `the environment variable ${project.apiKeyEnv} (projects.${name}.apiKeyEnv in ${file})`
    : `projects.${name}.apiKey in ${file}`;
}

function loadTarget(file: string, name: string): { config: MigrateConfig; target: IngestionTarget; keySource: string } {
  const config = loadConfig(file);
  return { config, target: resolveIngestion(config, name), keySource: keySource(config, name, file) };
}

function openForImport(staging: string, command: string): StagingStore {
  // A larger cache for the checkpoints: the deliveries they add go wherever seq falls, which is
  // all over the table when the source was not in time order.
  const store = StagingStore.open(staging, { mustExist: true, lockFor: command, cacheMb: IMPORT_CACHE_MB });
  for (const read of recoverInterruptedReads(store)) {
    warn(`note: an earlier ${read.command} of ${read.path} (started ${read.startedAt}) was interrupted; its partial rows were removed`);
  }
  return store;
}

function checkBinding(store: StagingStore, target: IngestionTarget): void {
  const problem = bindingProblem(findProjectRecord(store, target.name), target);
  if (problem !== undefined) {
    throw new RefusedError(problem, [
      'Sending the rest elsewhere would split this migration across two projects.',
      'To import into another project, give it its own name in the config (and, to start over, a new staging file).',
    ]);
  }
}

function checkTestFirst(store: StagingStore, config: MigrateConfig, target: IngestionTarget, override: boolean): void {
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
function nextStep(config: MigrateConfig, target: IngestionTarget): string | undefined {
  if (target.role !== 'test') return undefined;
  const production = Object.entries(config.projects).find(([, p]) => p.role === 'production');
  return production ? `migrate import --project ${shellWord(production[0])}` : undefined;
}

export async function importProject(input: ImportInput): Promise<void> {
  const file = configPath(input.config);
  const { config, target, keySource: source } = loadTarget(file, input.project);
  const store = openForImport(input.staging, 'import');
  try {
    checkBinding(store, target);
    checkTestFirst(store, config, target, input.skipTestFirst);
    const settings = resolveSettings(target.host, input.given);
    if (input.dryRun) {
      printDryRun(dryRun(store, target, findProjectRecord(store, target.name), settings, input.sample), input.json);
      return;
    }
    const project = bindProject(store, target);
    const run = startRun(store, { projectId: project.id, sample: input.sample, skipTestFirst: input.skipTestFirst, settings: { ...input.given }, configPath: file });
    await executeRun({ store, target, keySource: source, project, run, settings, quiet: input.quiet, json: input.json, next: nextStep(config, target) });
  } finally {
    store.close();
  }
}

export async function resumeImport(input: ResumeInput): Promise<void> {
  const store = openForImport(input.staging, 'resume');
  try {
    const run = latestUnfinishedRun(store, input.project);
    if (run === undefined) {
      print(input.project ? `Nothing to resume for project ${input.project}: its last import finished.` : 'Nothing to resume: every import finished.');
      return;
    }
    const file = input.config !== undefined ? configPath(input.config) : (run.configPath ?? configPath(undefined));
    const { config, target, keySource: source } = loadTarget(file, run.project);
    checkBinding(store, target);
    const settings = resolveSettings(target.host, { ...recordedSettings(run.settings), ...input.given });
    const project = bindProject(store, target);
    reopenRun(store, run.id);
    if (!input.quiet && !input.json) warn(`Resuming the import into ${run.project} started ${run.startedAt} (${run.delivered} events delivered by it so far).`);
    await executeRun({ store, target, keySource: source, project, run, settings, quiet: input.quiet, json: input.json, next: nextStep(config, target) });
  } finally {
    store.close();
  }
}
