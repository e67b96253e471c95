/**
 * `migrate doctor --project <name>`: everything that can be checked without sending an event
 * (the host, the keys, the personal key's scopes, the machine, the data already in the
 * project, billing), as a report of verdicts. Reads the staging file when there is one; sends
 * an empty batch and, without a personal key, one flags request; writes nothing.
 */
import { existsSync } from 'node:fs';
import { loadConfig } from '../config/load-config.js';
import { resolveIngestion } from '../config/resolve-project.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import type { Reporter } from '../reporter.js';
import { StagingStore } from '../staging/staging-store.js';
import { systemClock, type Clock } from '../util/clock.js';
import { doctorReport, type DoctorReport } from './check-result.js';
import { gatherFacts } from './gather/gather-facts.js';
import { runChecks } from './run-checks.js';
import type { BucketChoices } from '../buckets/bucket-settings.js';
import { probePrefixes } from '../buckets/probe-prefixes.js';
import { findFormat } from '../sources/formats.js';
import { bucketCheck } from './checks/bucket-check.js';

export interface DoctorInput {
  project: string;
  /** --config as typed. */
  config?: string;
  staging: string;
  /** --source: s3:// and gs:// addresses to list and read, and to size the staging file for. */
  sources?: { addresses: string[]; format: string; choices: BucketChoices; env: Readonly<Record<string, string | undefined>> };
}

/** Retries of doctor's requests to the ingestion host: a short budget, it is interactive. */
export const DOCTOR_RETRY_POLICY: RetryPolicy = { initialDelayMs: 500, maxDelayMs: 5_000, maxTotalWaitMs: 20_000 };
/** Bound for one of doctor's requests, in ms. */
export const DOCTOR_TIMEOUT_MS = 30_000;

export async function runDoctor(input: DoctorInput, reporter: Reporter, signal: AbortSignal, clock: Clock = systemClock): Promise<DoctorReport> {
  const config = loadConfig(input.config);
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
