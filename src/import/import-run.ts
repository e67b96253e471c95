/**
 * Runs one import run against its project: the HTTP client and the delivery engine wired to
 * the staging checkpoint, progress and notices to the reporter, the interrupt as an abort;
 * then the run's end is recorded and returned as its summary, or thrown as the error that
 * says what happened and how to continue.
 */
import { hostKey } from '../config/hosts.js';
import type { IngestionTarget } from '../config/resolve-project.js';
import { createBatchSender } from '../delivery/batch-sender.js';
import { chunkLimits } from '../delivery/chunk-stream.js';
import type { StopReason } from '../delivery/chunk-delivery.js';
import { runDelivery, type DeliveryResult } from '../delivery/delivery-run.js';
import type { DeliverySettings } from '../delivery/delivery-options.js';
import { bodyOverheadBytes } from '../delivery/event-encoding.js';
import { sendOrder } from '../delivery/send-order.js';
import { describeAnswer } from '../delivery/ingestion-answer.js';
import { deadLetterAllowance } from '../delivery/refusal-guard.js';
import { AuthError, DeliveryStoppedError, InterruptedError, type MigrateError } from '../errors.js';
import { EventKind } from '../events/staged-event.js';
import { createHttpClient } from '../http/http-client.js';
import type { Reporter } from '../reporter.js';
import { bindProject, DeliveryCheckpoint, findProjectRecord, releaseDeadLetters, totalStaged, type ProjectRecord } from '../staging/delivery-store.js';
import { endRun, getRun, type ImportRun } from '../staging/import-runs.js';
import { repackInSendOrder } from '../staging/send-order-repack.js';
import { kindReport } from '../staging/staging-report.js';
import type { StagingStore } from '../staging/staging-store.js';
import type { Clock } from '../util/clock.js';
import { count, plural, rate } from '../util/format.js';
import { interruptedBy } from '../util/interrupted-by.js';
import { migrateCommand, type CommandPlace } from '../util/migrate-command.js';
import { redact } from '../util/redact.js';
import { shellWord } from '../util/shell-word.js';
import { VERSION } from '../version.js';
import { readChunksOnWorker } from './chunk-reader.js';
import { resumeCommand } from './import-rules.js';
import { importFailure } from './import-target.js';
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
  /** The step to suggest after a complete run, from the staging file's state then; commands in it name `place`. */
  next?: (place: CommandPlace) => string | undefined;
  reporter: Reporter;
  /** Aborted by an interrupt: no new chunk starts, chunks in flight get the grace period. */
  signal: AbortSignal;
  clock: Clock;
}

async function deliver(o: ExecuteRunOptions, state: ProgressState, maxEvents: number | undefined, runTarget: number): Promise<DeliveryResult> {
  const { reporter, signal, clock } = o;
  const onInterrupt = (): void =>
    reporter.notice(`${interruptedBy(signal)}: starting no new chunks; chunks in flight get up to ${o.settings.interruptGraceMs} ms, then progress is saved (interrupt again to stop waiting)`);
  signal.addEventListener('abort', onInterrupt, { once: true });
  const client = createHttpClient({ connections: o.settings.concurrency });
  const checkpoint = new DeliveryCheckpoint(o.store, o.project.id, o.run.id);
  const overheadBytes = bodyOverheadBytes(o.target.apiKey);
  try {
    return await runDelivery({
      settings: o.settings,
      overheadBytes,
      interrupt: signal,
      chunks: readChunksOnWorker({
        stagingPath: o.store.path,
        projectId: o.project.id,
        limits: chunkLimits(o.settings, overheadBytes),
        maxEvents,
        order: sendOrder(o.settings.peopleLast),
        ...(o.settings.gzip ? { gzipApiKey: o.target.apiKey } : {}),
      }),
      sender: createBatchSender({ client, host: o.target.host, apiKey: o.target.apiKey, gzip: o.settings.gzip, timeoutMs: o.settings.requestTimeoutMs, userAgent: `migrate/${VERSION}` }),
      clock,
      deadLetterAllowance: deadLetterAllowance(runTarget, o.settings.maxDeadLetters),
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
  const { startedMs: _startedMs, pace: _pace, ...counters } = result.stats;
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
    reassertions: kindReport(o.store, EventKind.reassert).count,
    peopleLast: o.settings.peopleLast,
  };
}

export async function executeRun(o: ExecuteRunOptions): Promise<RunResult> {
  const total = totalStaged(o.store);
  const settledBefore = o.project.delivered + o.project.deadLetters;
  const maxEvents = o.run.sample === null ? undefined : Math.max(0, o.run.sample - o.run.delivered - o.run.deadLetters);
  const runTarget = Math.min(maxEvents ?? Number.POSITIVE_INFINITY, total - settledBefore);
  try {
    const state: ProgressState = { project: o.project.name, settledBefore, totalStaged: total, runTarget, sample: o.run.sample !== null };
    repackPending(o);
    // The checks before the run and the repack read the whole file through this connection:
    // what they left in its caches is not what the checkpoints need.
    o.store.releaseCaches();
    const result = await deliver(o, state, maxEvents, runTarget);
    return endOfRun(o, result, total, runTarget);
  } catch (error) {
    throw error instanceof UnfinishedRunError ? error : runFailure(o, error);
  }
}

/**
 * Repacks the pending rows' property blocks in send order when the source was not in time order
 * (see send-order-repack.ts): import would otherwise unpack a block for nearly every row.
 */
function repackPending(o: ExecuteRunOptions): void {
  const starting = (reads: { rows: number; blocks: number; unpacks: number }): void =>
    o.reporter.notice(
      `${o.project.name}: the staged rows are not in time order (reading ${plural(reads.rows, 'row')} in send order would unpack their ${plural(reads.blocks, 'block')} of properties ${count(reads.unpacks)} times): repacking them in send order first`,
    );
  try {
    repackInSendOrder(o.store, o.project.id, { signal: o.signal, starting });
  } catch (error) {
    // Each of its steps is a transaction: a failed one leaves the rows as they were, readable.
    // Import goes on without it, slower; a file that takes no writes fails at the first checkpoint.
    o.reporter.warn(`${o.project.name}: the staged rows could not be repacked in send order (${redact((error as Error)?.message ?? String(error))}); sending them as staged, more slowly`);
  }
}

/** The staging file and config of the run, for the commands its messages suggest. */
function placeOf(o: ExecuteRunOptions): CommandPlace {
  return { staging: o.store.path, config: o.run.configPath };
}

/** Records how the run ended and returns its summary, or throws the error that says what happened. */
function endOfRun(o: ExecuteRunOptions, result: DeliveryResult, total: number, runTarget: number): RunResult {
  const summary = summarize(o, result, total);
  const pace = { eventsPerSec: summary.eventsPerSec, requests: summary.requests, refused: summary.refused, retryWaitMs: summary.retryWaitMs };
  const resume = resumeCommand(placeOf(o), o.project.name);
  const end = result.end;
  if (end.type === 'done' && summary.delivered === 0 && runTarget > 0) {
    endRun(o.store, o.run.id, 'stopped', 'every event sent was refused', pace);
    throw new UnfinishedRunError(summary, nothingDelivered(o, summary, resume));
  }
  if (end.type === 'done') {
    endRun(o.store, o.run.id, 'done', undefined, pace);
    return { summary, next: o.next?.(placeOf(o)) };
  }
  if (end.type === 'interrupted') {
    const by = interruptedBy(o.signal);
    endRun(o.store, o.run.id, 'interrupted', `interrupted by ${by}`, pace);
    throw new UnfinishedRunError(
      summary,
      new InterruptedError(`interrupted by ${by}: every chunk the server accepted is recorded; ${plural(summary.pending, 'event')} still pending`, [`Resume with: ${resume}`]),
    );
  }
  endRun(o.store, o.run.id, 'stopped', redact(end.reason.message), pace);
  throw new UnfinishedRunError(summary, stopError(o, end.reason, summary.pending, resume));
}

/**
 * A run that failed (the staging file could not be written, a reading thread failed): recorded
 * as failed where the file still takes a write, and explained.
 */
function runFailure(o: ExecuteRunOptions, error: unknown): unknown {
  try {
    endRun(o.store, o.run.id, 'failed', redact((error as Error)?.message ?? String(error)));
  } catch {
    // The file takes no more writes (a full disk): the run stays 'running', which resume continues.
  }
  return importFailure(o.store, o.project.name, error);
}

/** Every event a run sent was refused one by one (within the allowance): it achieved nothing. */
function nothingDelivered(o: ExecuteRunOptions, summary: RunSummary, resume: string): MigrateError {
  return new DeliveryStoppedError(`${o.target.host} accepted none of the ${plural(summary.deadLettered, 'event')} this run sent: every one was refused (dead letters)`, [
    `See why with \`${migrateCommand('status', placeOf(o))}\`. Once the cause is fixed, send them again: ${migrateCommand(`import --project ${shellWord(o.project.name)} --retry-dead-letters`, placeOf(o))}`,
    `${plural(summary.pending, 'event')} still pending; to continue: ${resume}`,
  ]);
}

/** The error that ends a stopped run: which key or server, what is saved, how to continue. */
function stopError(o: ExecuteRunOptions, reason: StopReason, pending: number, resume: string): MigrateError {
  if (reason.kind === 'auth') {
    return new AuthError(`${o.target.host} refused the project API key of project "${o.project.name}" (HTTP ${reason.status}: ${reason.message})`, [
      `The key comes from ${o.keySource}. It must be the project API key (phc_...) of the PostHog project at ${o.target.host}, from its Project settings; a personal API key (phx_...) is not accepted for ingestion.`,
      `Nothing was marked delivered for the refused requests. After fixing the key: ${resume}`,
    ]);
  }
  if (reason.kind === 'foreign') {
    return new DeliveryStoppedError(`${o.target.host} is not a PostHog ingestion endpoint: ${o.target.host}/batch/ answered ${describeAnswer(reason.answer!)}`, [
      `PostHog acknowledges a batch with {"status": "Ok"}; nothing of that answer was recorded as delivered or dead-lettered, and ${plural(pending, 'event is', 'events are')} still pending.`,
      `Check the host of project "${o.project.name}" in the config: it must be PostHog's ingestion address (https://us.i.posthog.com, https://eu.i.posthog.com, or your own instance's), not the web app's page, a proxy's login page or another service.`,
      `After fixing the host: ${resume}`,
    ]);
  }
  if (reason.kind === 'refused') {
    return new DeliveryStoppedError(`delivery to ${o.target.host} stopped: ${reason.message}`, [
      `Those events were not dead-lettered: ${plural(pending, 'event')} still pending.`,
      'A server that refuses every event is usually the wrong one, or refuses this project: check the host and the key. If these events really are bad, raise --max-dead-letters to keep them as dead letters and send the rest.',
      `Then: ${resume}`,
    ]);
  }
  const what = reason.kind === 'exhausted' ? 'the server kept failing' : 'the server cannot take events here';
  return new DeliveryStoppedError(`delivery to ${o.target.host} stopped, ${what}: ${reason.message}`, [
    `Every chunk the server accepted is recorded; ${plural(pending, 'event')} still pending.`,
    `${reason.kind === 'endpoint' ? 'After fixing the host in the config, resume' : 'Resume when the server is healthy'}: ${resume}`,
  ]);
}

/**
 * Binds the project to the target's host, starts (or reopens) its run with `openRun`, and
 * releases the dead letters to send again: all of them with --retry-dead-letters, or those a
 * host the project no longer points to refused. Returns the project and run as they are then.
 */
export function bindForRun(
  store: StagingStore,
  target: IngestionTarget,
  reporter: Reporter,
  openRun: (projectId: number) => ImportRun,
  retryDeadLetters: boolean,
): { project: ProjectRecord; run: ImportRun } {
  const before = findProjectRecord(store, target.name);
  const bound = bindProject(store, target);
  const run = openRun(bound.id);
  const hostChanged = before !== undefined && before.deadLetters > 0 && hostKey(before.host) !== hostKey(target.host);
  if (retryDeadLetters || hostChanged) {
    const released = releaseDeadLetters(store, bound.id, run.id, retryDeadLetters ? 'retry' : 'host-changed');
    const why = retryDeadLetters ? '--retry-dead-letters' : `they were refused by ${before!.host}, which project ${target.name} no longer points to`;
    reporter.notice(released > 0 ? `${plural(released, 'dead letter')} of project ${target.name} will be sent again (${why}).` : `Project ${target.name} has no dead letters to send again.`);
  }
  return { project: findProjectRecord(store, target.name)!, run: getRun(store, run.id)! };
}
