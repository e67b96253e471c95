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
import { doctorReport, type DoctorReport } from './check-result.js';
import { gatherFacts } from './gather/gather-facts.js';
import { runChecks } from './run-checks.js';
import { DOCTOR_RETRY_POLICY, DOCTOR_TIMEOUT_MS } from './doctor-timing.js';
import { runSourceDoctor } from './source-doctor.js';
import type { BucketChoices } from '../buckets/bucket-settings.js';
import { probePrefixes } from '../buckets/probe-prefixes.js';
import { findFormat } from '../sources/formats.js';
import { bucketCheck } from './checks/bucket-check.js';

export interface DoctorInput {
  project: string;
  /** --config as typed. */
  config?: string;
  staging: string;
  /** A source project (no project key, a personal key): the window export-source would read. */
  start?: string;
  end?: string;
  /** --source: s3:// and gs:// addresses to list and read, and to size the staging file for. */
  sources?: { addresses: string[]; format: string; choices: BucketChoices; env: Readonly<Record<string, string | undefined>> };
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
    const report = runChecks(facts);
    if (input.sources === undefined || input.sources.addresses.length === 0) return report;
    reporter.progress(`listing ${input.sources.addresses.join(', ')}`);
    const extensions = findFormat(input.sources.format)?.extensions ?? [];
    const probes = await probePrefixes({ ...input.sources, extensions, clock, policy: DOCTOR_RETRY_POLICY, signal });
    const disk = facts.machine.disk;
    return doctorReport(report.project, report.host, [...report.checks, bucketCheck(probes, 'error' in disk ? undefined : disk.freeBytes)]);
  } finally {
    store?.close();
  }
}
