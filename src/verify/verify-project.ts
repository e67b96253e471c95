/**
 * The `verify` use case: per UTC day (and event name) what the staging file staged, delivered
 * to a project and dead-lettered there, against what PostHog holds (distinct uuids, counted
 * with HogQL through the management API); optionally waiting for ingestion to settle, and
 * re-sending exactly the events PostHog accepted and lost.
 */
import { configPath, loadConfig } from '../config/load-config.js';
import { resolveManagement, type ManagementTarget } from '../config/resolve-project.js';
import { RefusedError, UsageError } from '../errors.js';
import { createHttpClient } from '../http/http-client.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import { bindingProblem } from '../import/import-rules.js';
import { openForImport } from '../import/import-target.js';
import { runHogQL } from '../management/hogql-query.js';
import { createManagementClient } from '../management/management-client.js';
import type { Reporter } from '../reporter.js';
import { findProjectRecord, type ProjectRecord } from '../staging/delivery-store.js';
import { StagingStore } from '../staging/staging-store.js';
import { systemClock, type Clock } from '../util/clock.js';
import { migrateCommand, type CommandPlace } from '../util/migrate-command.js';
import { shellWord } from '../util/shell-word.js';
import type { QueryRunner } from './landed-counts.js';
import { resendMissing, type ResendResult } from './resend-missing.js';
import { readLanded, stagedCounts, type LandedPlan } from './verify-reading.js';
import { statusFigures, type StatusFigures } from './status-figures.js';
import { orderRows, summarize, type VerifyRow, type VerifySummary } from './verify-table.js';
import { readUntilSettled, type WaitOutcome } from './wait-for-landing.js';

export interface VerifyInput {
  staging: string;
  /** --config as typed. */
  config?: string;
  project: string;
  /** First and last UTC day to check (YYYY-MM-DD), inclusive; default the staged range. */
  since?: string;
  until?: string;
  byEvent: boolean;
  /** Keep reading until ingestion settles, at most this long, in ms; 0 reads once. */
  waitMs: number;
  resendMissing: boolean;
}

export interface VerifyOptions {
  /** Waits between readings and for throttled queries. Default: the system clock. */
  clock?: Clock;
  /** Backoff for throttled queries (429). Default: the management API's. */
  retryPolicy?: RetryPolicy;
  /** Rows per page of a query answer; tests use small pages to page for real. Default 49,999. */
  pageRows?: number;
}

export interface VerifyResult {
  staging: string;
  project: string;
  apiHost: string;
  projectId: string;
  /** How landed was counted: the project's delivered uuids looked up among those PostHog holds. */
  method: 'uuids';
  /** The staging file's `$import_run`, when it has one (shown, not used for counting). */
  importRun: string | null;
  since: string | null;
  until: string | null;
  byEvent: boolean;
  /** Rows short of events first, then the rest, by day (and event). */
  rows: VerifyRow[];
  summary: VerifySummary;
  /** Queries sent to PostHog's query endpoint. */
  queries: number;
  wait: Omit<WaitOutcome, 'reading'>;
  resend: ResendResult | null;
  figures: StatusFigures;
  checkedAt: string;
}

function openStaging(input: VerifyInput, reporter: Reporter): StagingStore {
  // Re-sending writes, so it takes the staging lock as an import does; a check only reads.
  return input.resendMissing ? openForImport(input.staging, 'verify', reporter) : StagingStore.open(input.staging, { mustExist: true });
}

function boundProject(store: StagingStore, target: ManagementTarget, place: CommandPlace): ProjectRecord {
  const record = findProjectRecord(store, target.name);
  if (record === undefined || record.delivered + record.deadLetters === 0) {
    throw new UsageError(`nothing from ${store.path} was delivered to project "${target.name}" yet: there is nothing to verify`, [
      `Import first: ${migrateCommand(`import --project ${shellWord(target.name)}`, place)}`,
    ]);
  }
  const problem = bindingProblem(record, { name: target.name, role: record.role, host: target.ingestionHost });
  if (problem !== undefined) throw new RefusedError(problem, ['verify asks the PostHog the events were sent to; point the project back at it in the config.']);
  return record;
}

function countingRunner(target: ManagementTarget, options: VerifyOptions, reporter: Reporter): { run: QueryRunner; queries: () => number; close: () => Promise<void> } {
  const http = createHttpClient({ connections: 1 });
  const client = createManagementClient({
    target,
    http,
    clock: options.clock,
    retryPolicy: options.retryPolicy,
    onThrottle: (waitMs) => reporter.warn(`PostHog is throttling queries; waiting ${Math.ceil(waitMs / 1000)} s as it asks.`),
  });
  let queries = 0;
  const run: QueryRunner = (text) => {
    queries++;
    reporter.progress(`asking PostHog what landed (query ${queries})`);
    return runHogQL(client, text);
  };
  return { run, queries: () => queries, close: () => http.close() };
}

interface Session {
  input: VerifyInput;
  options: VerifyOptions;
  target: ManagementTarget;
  store: StagingStore;
  project: ProjectRecord;
  runner: ReturnType<typeof countingRunner>;
  reporter: Reporter;
  signal: AbortSignal;
  clock: Clock;
}

async function check(s: Session): Promise<VerifyResult> {
  const { input, store, project, runner, signal, clock } = s;
  const staged = stagedCounts(store, project.id, input);
  const plan: LandedPlan = { store, projectId: project.id, staged, byEvent: input.byEvent, run: runner.run, signal, pageRows: s.options.pageRows };
  const { reading, ...wait } = await readUntilSettled(() => readLanded(plan), { waitMs: input.waitMs, clock, signal, reporter: s.reporter });
  const rows = orderRows(reading.rows);
  const resend =
    input.resendMissing && reading.missingEvents.length > 0 ? await resendMissing({ store, project, config: input.config, reporter: s.reporter, signal, clock }, reading.missingEvents) : null;
  return {
    staging: store.path,
    project: project.name,
    apiHost: s.target.apiHost,
    projectId: s.target.projectId,
    method: 'uuids',
    importRun: staged.importRun ?? null,
    since: input.since ?? null,
    until: input.until ?? null,
    byEvent: input.byEvent,
    rows,
    summary: summarize(rows),
    queries: runner.queries(),
    wait,
    resend,
    figures: statusFigures(store, project.name),
    checkedAt: new Date(clock.now()).toISOString(),
  };
}

export async function verifyProject(input: VerifyInput, reporter: Reporter, signal: AbortSignal, options: VerifyOptions = {}): Promise<VerifyResult> {
  const target = resolveManagement(loadConfig(configPath(input.config)), input.project);
  const store = openStaging(input, reporter);
  try {
    const project = boundProject(store, target, { staging: store.path, config: input.config });
    const runner = countingRunner(target, options, reporter);
    try {
      return await check({ input, options, target, store, project, runner, reporter, signal, clock: options.clock ?? systemClock });
    } finally {
      await runner.close();
    }
  } finally {
    store.close();
  }
}
