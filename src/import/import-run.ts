/**
 * Runs one import run against its project: the HTTP client and the delivery engine wired to
 * the staging checkpoint, progress and notices to the reporter, the interrupt as an abort;
 * then the run's end is recorded and returned as its summary, or thrown as the error that
 * says what happened and how to continue.
 */
import type { IngestionTarget } from '../config/resolve-project.js';
import { createBatchSender } from '../delivery/batch-sender.js';
import { chunkLimits } from '../delivery/chunk-stream.js';
import type { StopReason } from '../delivery/chunk-delivery.js';
import { runDelivery, type DeliveryResult } from '../delivery/delivery-run.js';
import type { DeliverySettings } from '../delivery/delivery-options.js';
import { bodyOverheadBytes } from '../delivery/event-encoding.js';
import { AuthError, DeliveryStoppedError, InterruptedError, type MigrateError } from '../errors.js';
import { createHttpClient } from '../http/http-client.js';
import type { Reporter } from '../reporter.js';
import { DeliveryCheckpoint, findProjectRecord, totalStaged, type ProjectRecord } from '../staging/delivery-store.js';
import { endRun, type ImportRun } from '../staging/import-runs.js';
import type { StagingStore } from '../staging/staging-store.js';
import type { Clock } from '../util/clock.js';
import { count, rate } from '../util/format.js';
import { interruptedBy } from '../util/interrupted-by.js';
import { redact } from '../util/redact.js';
import { VERSION } from '../version.js';
import { readChunksOnWorker } from './chunk-reader.js';
import { resumeCommand } from './import-rules.js';
import { progressLine, type ProgressState } from './progress-line.js';
import { UnfinishedRunError, type RunResult, type RunSummary } from './run-summary.js';

export interface ExecuteRunOptions {
  store: StagingStore;
  target: IngestionTarget;
  /** Where the key came from, to name it when the server refuses it. */
  keySource: string;
  project: ProjectRecord;
  run: ImportRun;
  settings: DeliverySettings;
  /** The command to suggest after a complete run, if any. */
  next?: string;
  reporter: Reporter;
  /** Aborted by an interrupt: no new chunk starts, chunks in flight get the grace period. */
  signal: AbortSignal;
  clock: Clock;
}

async function deliver(o: ExecuteRunOptions, state: ProgressState, maxEvents: number | undefined): Promise<DeliveryResult> {
  const { reporter, signal, clock } = o;
  const onInterrupt = (): void =>
    reporter.notice(`${interruptedBy(signal)}: starting no new chunks; chunks in flight get up to ${o.settings.interruptGraceMs} ms, then progress is saved`);
  signal.addEventListener('abort', onInterrupt, { once: true });
  const client = createHttpClient({ connections: o.settings.concurrency });
  const checkpoint = new DeliveryCheckpoint(o.store, o.project.id, o.run.id);
  const overheadBytes = bodyOverheadBytes(o.target.apiKey);
  try {
    return await runDelivery({
      settings: o.settings,
      overheadBytes,
      interrupt: signal,
      chunks: readChunksOnWorker({ stagingPath: o.store.path, projectId: o.project.id, limits: chunkLimits(o.settings, overheadBytes), maxEvents }),
      sender: createBatchSender({ client, host: o.target.host, apiKey: o.target.apiKey, gzip: o.settings.gzip, timeoutMs: o.settings.requestTimeoutMs, userAgent: `migrate/${VERSION}` }),
      clock,
      callbacks: {
        delivered: (seqs) => checkpoint.delivered(seqs),
        deadLettered: (seqs, status, message) => checkpoint.deadLettered(seqs.map((seq) => ({ seq, status, message: redact(message) }))),
        progress: (stats) => reporter.progress(progressLine(state, stats, clock.now())),
        notice: (text) => reporter.notice(`${o.project.name}: ${text}`),
      },
    });
  } finally {
    signal.removeEventListener('abort', onInterrupt);
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

export async function executeRun(o: ExecuteRunOptions): Promise<RunResult> {
  const total = totalStaged(o.store);
  const settledBefore = o.project.delivered + o.project.deadLetters;
  const maxEvents = o.run.sample === null ? undefined : Math.max(0, o.run.sample - o.run.delivered - o.run.deadLetters);
  const runTarget = Math.min(maxEvents ?? Number.POSITIVE_INFINITY, total - settledBefore);
  let result: DeliveryResult;
  try {
    result = await deliver(o, { project: o.project.name, settledBefore, totalStaged: total, runTarget }, maxEvents);
  } catch (error) {
    endRun(o.store, o.run.id, 'failed', redact((error as Error)?.message ?? String(error)));
    throw error;
  }
  const summary = summarize(o, result, total);
  const resume = resumeCommand(o.store.path, o.project.name);
  const end = result.end;
  if (end.type === 'done') {
    endRun(o.store, o.run.id, 'done');
    return { summary, next: o.next };
  }
  if (end.type === 'interrupted') {
    const by = interruptedBy(o.signal);
    endRun(o.store, o.run.id, 'interrupted', `interrupted by ${by}`);
    throw new UnfinishedRunError(
      summary,
      new InterruptedError(`interrupted by ${by}: every chunk the server accepted is recorded; ${count(summary.pending)} events still pending`, [`Resume with: ${resume}`]),
    );
  }
  endRun(o.store, o.run.id, 'stopped', redact(end.reason.message));
  throw new UnfinishedRunError(summary, stopError(o, end.reason, summary.pending, resume));
}

/** The error that ends a stopped run: which key or server, what is saved, how to continue. */
function stopError(o: ExecuteRunOptions, reason: StopReason, pending: number, resume: string): MigrateError {
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
