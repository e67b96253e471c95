/**
 * What import and resume share before anything is sent: the config and the project's key,
 * the staging file opened under its lock, and the safety rules (host binding, test before
 * production, test and production being two projects) as errors that say what to do.
 */
import type { MigrateConfig } from '../config/config-schema.js';
import { toIngestionUrl, REGION_HOSTS } from '../config/hosts.js';
import { loadConfig } from '../config/load-config.js';
import { findProject, resolveIngestion, type IngestionTarget } from '../config/resolve-project.js';
import { RefusedError } from '../errors.js';
import type { Reporter } from '../reporter.js';
import { acceptedTestProjects, findProjectRecord, totalStaged } from '../staging/delivery-store.js';
import { refusePendingPasses } from '../staging/pass-state.js';
import { rangeName, recoverInterruptedRanges } from '../staging/source-ranges.js';
import { refusePartialReads } from '../staging/source-reads.js';
import { StagingStore } from '../staging/staging-store.js';
import { bindingProblem, sharedProjectProblem, shellWord, testFirstProblem, type ConfiguredProject } from './import-rules.js';
import { plural } from '../util/format.js';
import { migrateCommand, type CommandPlace } from '../util/migrate-command.js';
import { nextStep, type ProjectProgress } from './next-step.js';

/** SQLite page cache of the import's writing connection, in MiB. */
const IMPORT_CACHE_MB = 32;

function keySource(config: MigrateConfig, name: string, file: string): string {
  const project = findProject(config, name);
  return project.apiKeyEnv !== undefined ? `the environment variable ${project.apiKeyEnv} (projects.${name}.apiKeyEnv in ${file})` : `projects.${name}.apiKey in ${file}`;
}

export function loadTarget(file: string, name: string): { config: MigrateConfig; target: IngestionTarget; keySource: string } {
  const config = loadConfig(file);
  return { config, target: resolveIngestion(config, name), keySource: keySource(config, name, file) };
}

export function openForImport(staging: string, command: string, reporter: Reporter): StagingStore {
  // A larger cache for the checkpoints: the deliveries they add go wherever seq falls, which is
  // all over the table when the source was not in time order.
  const store = StagingStore.open(staging, { mustExist: true, lockFor: command, cacheMb: IMPORT_CACHE_MB });
  try {
    // A source API range half fetched is undone first: half a range must never be sent.
    for (const range of recoverInterruptedRanges(store))
      reporter.warn(`note: ${rangeName(range.source, range)} was interrupted while being fetched; its rows were removed (export-source fetches it again)`);
    refusePartialReads(store);
    refusePendingPasses(store);
  } catch (error) {
    store.close();
    throw error;
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

/** The config's projects with what the shared-project rule compares (keys that can be read). */
export function configuredProjects(config: MigrateConfig, env: Readonly<Record<string, string | undefined>> = process.env): ConfiguredProject[] {
  return Object.entries(config.projects).map(([name, p]) => ({
    name,
    role: p.role,
    host: p.host !== undefined ? toIngestionUrl(p.host) : REGION_HOSTS[p.region!].ingestion,
    apiKey: p.apiKey ?? (p.apiKeyEnv !== undefined ? env[p.apiKeyEnv] || undefined : undefined),
    projectId: p.projectId,
  }));
}

export function checkSharedProject(config: MigrateConfig, target: IngestionTarget): void {
  const problem = sharedProjectProblem(target.name, configuredProjects(config));
  if (problem !== undefined) {
    throw new RefusedError(problem, ['Give the test project the key (and host) of a separate PostHog project made for rehearsals.']);
  }
}

/** `configFile` is the config's path, named in the commands suggested when it is not the default. */
export function checkTestFirst(store: StagingStore, config: MigrateConfig, target: IngestionTarget, override: boolean, configFile?: string): void {
  const problem = testFirstProblem(target.role, acceptedTestProjects(store), override);
  if (problem === undefined) return;
  const test = Object.entries(config.projects).find(([, p]) => p.role === 'test')?.[0];
  const tested = test !== undefined ? findProjectRecord(store, test) : undefined;
  const place: CommandPlace = { staging: store.path, config: configFile };
  const rehearse =
    tested !== undefined && tested.deadLetters > 0
      ? `Project "${test}" accepted nothing yet: its ${plural(tested.deadLetters, 'event was', 'events were')} refused (see \`${migrateCommand('status', place)}\`). Fix the cause, then: ${migrateCommand(`import --project ${shellWord(test!)} --retry-dead-letters`, place)}`
      : `Rehearse first: ${migrateCommand(`import --project ${shellWord(test ?? 'test')} --sample 1000`, place)}`;
  throw new RefusedError(`${problem} (project "${target.name}" has role production)`, [
    test !== undefined ? rehearse : 'Add a project with "role": "test" to the config (a separate PostHog project), and import into it first.',
    'Or override with --skip-test-first; the override is recorded in the staging file.',
  ]);
}

/**
 * The error to throw for `error` met during an import into `project`: a storage failure of the
 * staging file explained (for a full disk, with what is recorded as delivered), anything else as it is.
 */
export function importFailure(store: StagingStore, project: string, error: unknown): unknown {
  return store.failure(error, () => `${plural(findProjectRecord(store, project)?.delivered ?? 0, 'event')} delivered to ${project} so far, recorded`);
}

/** Each project of the config with its state in the staging file. */
function progressOf(store: StagingStore, config: MigrateConfig): ProjectProgress[] {
  const total = totalStaged(store);
  return Object.entries(config.projects).map(([name, p]) => {
    const record = findProjectRecord(store, name);
    const delivered = record?.delivered ?? 0;
    const deadLetters = record?.deadLetters ?? 0;
    return { name, role: p.role, delivered, deadLetters, pending: total - delivered - deadLetters };
  });
}

/** The next step after a finished run into `target`, from the staging file's state. */
export function nextStepAfter(store: StagingStore, config: MigrateConfig, target: IngestionTarget, place: CommandPlace): string | undefined {
  const projects = progressOf(store, config);
  const current = projects.find((p) => p.name === target.name);
  return current === undefined ? undefined : nextStep(current, projects, place);
}
