/**
 * `migrate doctor --project <name>`: everything that can be checked without sending an event
 * (the host, the keys, the personal key's scopes, the machine, the data already in the
 * project, billing), as a report of verdicts. Reads the staging file when there is one; sends
 * an empty batch and one flags request (the ingestion host must know the key, whatever the API
 * says); writes nothing.
 */
import { existsSync } from 'node:fs';
import { loadConfig } from '../config/load-config.js';
import type { MigrateConfig } from '../config/config-schema.js';
import { findProject, resolveIngestion } from '../config/resolve-project.js';
import type { Reporter } from '../reporter.js';
import { StagingStore } from '../staging/staging-store.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { DoctorReport } from './check-result.js';
import { gatherFacts } from './gather/gather-facts.js';
import { runChecks } from './run-checks.js';
import { DOCTOR_RETRY_POLICY, DOCTOR_TIMEOUT_MS } from './doctor-timing.js';
import { runSourceDoctor } from './source-doctor.js';

export interface DoctorInput {
  project: string;
  /** --config as typed. */
  config?: string;
  staging: string;
  /** A source project (no project key, a personal key): the window export-source would read. */
  start?: string;
  end?: string;
}

/** A project with a personal key and no project key is read from, not sent to: it is checked as a source. */
function isSource(config: MigrateConfig, name: string): boolean {
  const project = findProject(config, name);
  return project.apiKey === undefined && project.apiKeyEnv === undefined && (project.personalApiKey !== undefined || project.personalApiKeyEnv !== undefined);
}

export { DOCTOR_RETRY_POLICY, DOCTOR_TIMEOUT_MS } from './doctor-timing.js';

export async function runDoctor(input: DoctorInput, reporter: Reporter, signal: AbortSignal, clock: Clock = systemClock): Promise<DoctorReport> {
  const config = loadConfig(input.config);
  if (isSource(config, input.project)) return runSourceDoctor({ project: input.project, config: input.config, start: input.start, end: input.end, nowMs: clock.now() }, reporter, signal, clock);
  const target = resolveIngestion(config, input.project);
  const store = existsSync(input.staging) ? StagingStore.open(input.staging, { mustExist: true }) : undefined;
  try {
    reporter.progress(`${target.name}: checking ${target.host}`);
    const facts = await gatherFacts({ config, target, store, stagingPath: input.staging, policy: DOCTOR_RETRY_POLICY, timeoutMs: DOCTOR_TIMEOUT_MS, clock, signal });
    return runChecks(facts);
  } finally {
    store?.close();
  }
}
