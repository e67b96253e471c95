/**
 * `migrate doctor --project <name>`: everything that can be checked without sending an event
 * (the host, the keys, the personal key's scopes, the machine, the data already in the
 * project, billing), as a report of verdicts. Reads the staging file when there is one; sends
 * an empty batch and one flags request (the ingestion host must know the key, whatever the API
 * says); writes nothing.
 */
import { existsSync } from 'node:fs';
import { loadConfig } from '../config/load-config.js';
import { resolveIngestion } from '../config/resolve-project.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import type { Reporter } from '../reporter.js';
import { StagingStore } from '../staging/staging-store.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { DoctorReport } from './check-result.js';
import { gatherFacts } from './gather/gather-facts.js';
import { runChecks } from './run-checks.js';

export interface DoctorInput {
  project: string;
  /** --config as typed. */
  config?: string;
  staging: string;
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
    return runChecks(facts);
  } finally {
    store?.close();
  }
}
