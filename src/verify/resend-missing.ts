/**
 * `verify --resend-missing`: exactly the delivered events the last reading found missing (by
 * uuid: the same set its counts come from) are made pending again (recorded with the run that
 * re-sends them) and sent by a new import run of the project, with the options of its latest
 * run. Same uuids and content as the first time, so nothing can double.
 */
import { configPath } from '../config/load-config.js';
import { mergeSettings, resolveSettings } from '../delivery/delivery-options.js';
import { RefusedError } from '../errors.js';
import { executeRun } from '../import/import-run.js';
import { checkBinding, loadTarget } from '../import/import-target.js';
import { resumeCommand } from '../import/import-rules.js';
import { warnUnlocatedRows } from '../import/ingestion-checks.js';
import type { RunSummary } from '../import/run-summary.js';
import type { Reporter } from '../reporter.js';
import { findProjectRecord, totalStaged, type ProjectRecord } from '../staging/delivery-store.js';
import { latestRuns, startRun } from '../staging/import-runs.js';
import { requeueDelivered } from '../staging/requeue.js';
import type { StagingStore } from '../staging/staging-store.js';
import type { Clock } from '../util/clock.js';
import { plural } from '../util/format.js';
import { migrateCommand } from '../util/migrate-command.js';
import { shellWord } from '../util/shell-word.js';
import type { MissingEvent } from './landed-counts.js';
import { dayFromNumber } from './utc-day.js';

export interface ResendResult {
  /** Delivered events PostHog does not hold, made pending again. */
  requeued: number;
  /** The days they were on. */
  days: string[];
  /** The import run that re-sent them, with its summary; null when nothing was missing. */
  runId: number | null;
  run: RunSummary | null;
}

export interface ResendContext {
  store: StagingStore;
  project: ProjectRecord;
  /** --config as typed. */
  config?: string;
  reporter: Reporter;
  signal: AbortSignal;
  clock: Clock;
}

/** Only the re-queued events may be sent: an unfinished import is resumed first, by its own command. */
function checkNothingPending(ctx: ResendContext): void {
  const pending = totalStaged(ctx.store) - ctx.project.delivered - ctx.project.deadLetters;
  if (pending === 0) return;
  const place = { staging: ctx.store.path, config: ctx.config };
  throw new RefusedError(
    `${plural(pending, 'staged event')} of project "${ctx.project.name}" ${pending === 1 ? 'was' : 'were'} never delivered; --resend-missing re-sends only events PostHog accepted and lost`,
    [`Finish the import first: ${resumeCommand(place, ctx.project.name)} (or ${migrateCommand(`import --project ${shellWord(ctx.project.name)}`, place)}), then verify again.`],
  );
}

export async function resendMissing(ctx: ResendContext, missing: readonly MissingEvent[]): Promise<ResendResult> {
  checkNothingPending(ctx);
  if (missing.length === 0) return { requeued: 0, days: [], runId: null, run: null };
  const seqs = missing.map((m) => m.seq);
  const shortDays = [...new Set(missing.map((m) => m.day))].sort((a, b) => a - b).map(dayFromNumber);
  const file = configPath(ctx.config);
  const { target, keySource } = loadTarget(file, ctx.project.name);
  checkBinding(ctx.store, target);
  const recorded = latestRuns(ctx.store).find((r) => r.projectId === ctx.project.id)?.settings ?? {};
  const settings = resolveSettings(target.host, mergeSettings(recorded, {}));
  const run = startRun(ctx.store, { projectId: ctx.project.id, sample: undefined, skipTestFirst: false, settings: recorded, configPath: file });
  const requeued = requeueDelivered(ctx.store, ctx.project.id, run.id, seqs);
  ctx.reporter.notice(`${ctx.project.name}: ${plural(requeued, 'event')} PostHog accepted but does not hold ${requeued === 1 ? 'is' : 'are'} pending again; re-sending them (same uuids and content)`);
  const project = findProjectRecord(ctx.store, ctx.project.name)!;
  warnUnlocatedRows(ctx.store, ctx.project.name, ctx.reporter);
  const result = await executeRun({ store: ctx.store, target, keySource, project, run, settings, reporter: ctx.reporter, signal: ctx.signal, clock: ctx.clock });
  return { requeued, days: shortDays, runId: run.id, run: result.summary };
}
