/**
 * Runs one import run against its project: progress, interrupts, the HTTP client and the
 * delivery engine wired to the staging checkpoint; then the run's end is recorded and turned
 * into the summary or the error that says what happened and how to continue.
 */
import { count, rate } from '../cli/format.js';
import { watchInterrupts } from '../cli/interrupt.js';
import { createProgress } from '../cli/progress.js';
import type { IngestionTarget } from '../config/resolve-project.js';
import { createBatchSender } from '../delivery/batch-sender.js';
import { chunkLimits } from '../delivery/chunk-stream.js';
import type { StopReason } from '../delivery/chunk-delivery.js';
import { runDelivery, type DeliveryResult } from '../delivery/delivery-run.js';
import type { DeliverySettings } from '../delivery/delivery-settings.js';
import { bodyOverheadBytes } from '../delivery/event-encoding.js';
import { AuthError, DeliveryStoppedError, InterruptedError } from '../errors.js';
import { createHttpClient } from '../http/http-client.js';
import { DeliveryCheckpoint, findProjectRecord, totalStaged, type ProjectRecord } from '../staging/delivery-store.js';
import { endRun, type ImportRun } from '../staging/import-runs.js';
import type { StagingStore } from '../staging/staging-store.js';
import { systemClock } from '../util/clock.js';
import { redact } from '../util/redact.js';
import { VERSION } from '../version.js';
import { readChunksOnWorker } from './chunk-reader.js';
import { printRunSummary, progressLine, type ProgressState, type RunSummary } from './import-report.js';
import { resumeCommand } from './import-rules.js';

export interface ExecuteRunOptions {
  store: StagingStore;
  target: IngestionTarget;
  /** Where the key came from, to name it when the server refuses it. */
  keySource: string;
  project: ProjectRecord;
  run: ImportRun;
  settings: DeliverySettings;
  quiet: boolean;
  json: boolean;
  /** The command to suggest after a complete run, if any. */
  next?: string;
}

async function deliver(o: ExecuteRunOptions, state: ProgressState, maxEvents: number | undefined): Promise<{ result: DeliveryResult; signal?: string }> {
  const progress = createProgress({ quiet: o.quiet || o.json });
  const interrupts = watchInterrupts((signal) =>
    progress.log(`${signal}: starting no new chunks; chunks in flight get up to ${o.settings.interruptGraceMs} ms, then progress is saved`),
  );
  const client = createHttpClient({ connections: o.settings.concurrency });
  const checkpoint = new DeliveryCheckpoint(o.store, o.project.id, o.run.id);
  const overheadBytes = bodyOverheadBytes(o.target.apiKey);
  try {
    const result = await runDelivery({
      settings: o.settings,
      overheadBytes,
      interrupt: interrupts.signal,
      chunks: readChunksOnWorker({ stagingPath: o.store.path, projectId: o.project.id, limits: chunkLimits(o.settings, overheadBytes), maxEvents }),
      sender: createBatchSender({ client, host: o.target.host, apiKey: o.target.apiKey, gzip: o.settings.gzip, timeoutMs: o.settings.requestTimeoutMs, userAgent: `migrate/${VERSION}` }),
      clock: systemClock,
      callbacks: {
        delivered: (seqs) => checkpoint.delivered(seqs),
        deadLettered: (seqs, status, message) => checkpoint.deadLettered(seqs.map((seq) => ({ seq, status, message: redact(message) }))),
        progress: (stats) => progress.update(progressLine(state, stats, Date.now())),
        notice: (text) => progress.log(`${o.project.name}: ${text}`),
      },
    });
    return { result, signal: interrupts.received() };
  } finally {
    progress.stop();
    interrupts.dispose();
    await client.close();
  }
}

function summarize(o: ExecuteRunOptions, result: DeliveryResult, totalStagedNow: number): RunSummary {
  const project = findProjectRecord(o.store, o.project.name)!;
  const { startedMs: _startedMs, ...counters } = result.stats;
  return {
    project: o.project.name,
    host: o.target.host,
    outcome: result.end.type,
    ...counters,
    elapsedMs: result.elapsedMs,
    eventsPerSec: rate(counters.delivered, result.elapsedMs),
    projectDelivered: project.delivered,
    projectDeadLetters: project.deadLetters,
    pending: totalStagedNow - project.delivered - project.deadLetters,
    totalStaged: totalStagedNow,
    sample: o.run.sample,
  };
}

export async function executeRun(o: ExecuteRunOptions): Promise<void> {
  const total = totalStaged(o.store);
  const settledBefore = o.project.delivered + o.project.deadLetters;
  const maxEvents = o.run.sample === null ? undefined : Math.max(0, o.run.sample - o.run.delivered - o.run.deadLetters);
  const runTarget = Math.min(maxEvents ?? Number.POSITIVE_INFINITY, total - settledBefore);
  let outcome: Awaited<ReturnType<typeof deliver>>;
  try {
    outcome = await deliver(o, { project: o.project.name, settledBefore, totalStaged: total, runTarget }, maxEvents);
  } catch (error) {
    endRun(o.store, o.run.id, 'failed', redact((error as Error)?.message ?? String(error)));
    throw error;
  }
  const { result, signal } = outcome;
  const summary = summarize(o, result, total);
  const resume = resumeCommand(o.store.path, o.project.name);
  const end = result.end;
  if (end.type === 'done') {
    endRun(o.store, o.run.id, 'done');
    printRunSummary(summary, o.json, o.next);
    return;
  }
  printRunSummary(summary, o.json, undefined);
  if (end.type === 'interrupted') {
    endRun(o.store, o.run.id, 'interrupted', `interrupted by ${signal ?? 'a signal'}`);
    throw new InterruptedError(`interrupted by ${signal ?? 'a signal'}: every chunk the server accepted is recorded; ${count(summary.pending)} events still pending`, [
      `Resume with: ${resume}`,
    ]);
  }
  endRun(o.store, o.run.id, 'stopped', redact(end.reason.message));
  throw stopError(o, end.reason, summary.pending, resume);
}

/** The error that ends a stopped run: which key or server, what is saved, how to continue. */
function stopError(o: ExecuteRunOptions, reason: StopReason, pending: number, resume: string): Error {
  if (reason.kind === 'auth') {
    return new AuthError(`${o.target.host} refused the project API key of project "${o.project.name}" (HTTP ${reason.status}: ${reason.message})`, [
      `The key comes from ${o.keySource}. It must be the project API key (phc_...) of the PostHog project at ${o.target.host}, from its Project settings; a personal API key (phx_...) is not accepted for ingestion.`,
      `Nothing was marked delivered for the refused requests. After fixing the key: ${resume}`,
    ]);
  }
  const what = reason.kind === 'exhausted' ? 'the server kept failing' : 'the server cannot take events here';
  return new DeliveryStoppedError(`delivery to ${o.target.host} stopped, ${what}: ${reason.message}`, [
    `Every chunk the server accepted is recorded; ${count(pending)} events still pending.`,
    `${reason.kind === 'endpoint' ? 'After fixing the host in the config, resume' : 'Resume when the server is healthy'}: ${resume}`,
  ]);
}
