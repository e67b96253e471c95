/**
 * The ranges of a window fetched one after another, or a few at once (Mixpanel takes three):
 * downloads overlap, staging takes turns. Amplitude's plan is cut again as answers come
 * (sized from what they weighed, halved after a refusal). The first reason to stop (the
 * credentials refused, the disk full, Ctrl-C) stops the ranges in flight too; each goes back
 * to pending with nothing of it staged.
 */
import { MigrateError, RemoteError } from '../errors.js';
import type { PassesResult } from '../passes/run-passes.js';
import type { PeoplePart } from './posthog-people.js';
import { redact } from '../util/redact.js';
import { spanLength, type Span } from '../source-apis/api-ranges.js';
import { addByReason, COUNT_KEYS, emptyCounts, type ReadCounts } from '../staging/source-reads.js';
import type { StagingStore } from '../staging/staging-store.js';
import { InFlight } from '../util/in-flight.js';
import { adaptiveHours, MAX_HOURS_PER_REQUEST, nextRange, planWindow, rangeKey, rangesIn } from './api-plan.js';
import { RangeRun, type RangeResult, type RangeRunContext } from './api-range-run.js';

export interface LoopOptions {
  window: Span;
  concurrency: number;
  /** Amplitude: hours per request as given; otherwise sized from the data. */
  fixedHours?: number;
  /** The user's Ctrl-C. */
  signal: AbortSignal;
  /** Aborted, with the error as its reason, when something failed outside any range's own code (an error thrown inside the HTTP client's socket handling). */
  failure?: AbortSignal;
}

export interface LoopResult {
  ranges: RangeResult[];
  /** Ranges done or empty in this run. */
  fetched: number;
}

export interface StageApiResult {
  staging: string;
  /** The source's name in the ledger: `mixpanel-api:12345`. */
  source: string;
  vendor: string;
  unit: 'day' | 'hour';
  window: { start: string; end: string; cappedFrom: string | null };
  /** Ranges of the window done (or empty) before this run, and the days or hours they hold: not fetched again. */
  alreadyDone: { ranges: number; units: number };
  /** Ranges fetched (or tried) in this run, in the order they ended. */
  ranges: RangeResult[];
  totals: ReadCounts & { rejectedByReason: Record<string, number>; skippedByReason: Record<string, number> };
  /** The window's ranges in the ledger after this run, by status. */
  ledger: { done: number; empty: number; failed: number; pending: number };
  /** Ranges an earlier run left half-fetched, undone before this one. */
  recovered: string[];
  requests: number;
  /** The source has given no data at all (every range empty): suspicious, so nothing is recorded as empty. */
  noData: boolean;
  /** posthog-api: the persons and each group type's groups, staged after the events. */
  people?: PeoplePart[];
  /** What the passes after staging did (identity links, group updates, sessions), as after file staging. */
  passes?: PassesResult;
  elapsedMs: number;
}

type Context = Omit<RangeRunContext, 'signal' | 'stagingTurn'>;

/** One task at a time through `turn`, in the order asked. */
function turns(): RangeRunContext['stagingTurn'] {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const next = last.then(work);
    last = next.catch(() => undefined);
    return next;
  };
}

class Loop {
  private readonly controller = new AbortController();
  private readonly tried = new Set<string>();
  private readonly inFlight = new InFlight();
  private readonly ctx: RangeRunContext;
  private stop: unknown;
  readonly result: LoopResult = { ranges: [], fetched: 0 };

  constructor(
    base: Context,
    private readonly o: LoopOptions,
  ) {
    this.ctx = { ...base, signal: AbortSignal.any([o.signal, this.controller.signal]), stagingTurn: turns() };
  }

  async run(): Promise<LoopResult> {
    const onFailure = (): void => this.stopWith(unexpectedFailure(this.o.failure!.reason));
    if (this.o.failure?.aborted) onFailure();
    this.o.failure?.addEventListener('abort', onFailure);
    try {
      return await this.fetchAll();
    } finally {
      this.o.failure?.removeEventListener('abort', onFailure);
    }
  }

  private async fetchAll(): Promise<LoopResult> {
    const { api, target, staging } = this.ctx;
    for (;;) {
      await this.inFlight.below(this.o.concurrency);
      if (this.stop !== undefined || this.ctx.signal.aborted) break;
      const row = nextRange(api, staging.store, target.source, this.o.window, this.tried);
      if (row === undefined) {
        if (this.inFlight.size === 0) break;
        await this.inFlight.below(this.inFlight.size);
        continue;
      }
      this.tried.add(rangeKey(row));
      const range = new RangeRun(this.ctx, row, row.span);
      this.inFlight.add(
        range.run().then(
          (r) => this.ended(r, row.span),
          (error: unknown) => this.failed(range.result, error),
        ),
      );
    }
    await this.inFlight.drain();
    if (this.stop !== undefined && !this.o.signal.aborted) throw this.stop;
    return this.result;
  }

  private ended(range: RangeResult, span: Span): void {
    this.result.ranges.push(range);
    if (range.status === 'done' || range.status === 'empty') {
      this.result.fetched++;
      this.ctx.progress.fetched(spanLength(span));
    }
    if (this.ctx.api.unit === 'hour' && this.o.fixedHours === undefined && range.status !== 'split') this.replan();
  }

  private failed(range: RangeResult, error: unknown): void {
    if (range.requests > 0 || range.error !== undefined) this.result.ranges.push(range);
    this.stopWith(error instanceof MigrateError ? error : unexpectedFailure(error));
  }

  /** The first reason to stop wins; every range in flight is stopped and undone. */
  private stopWith(error: MigrateError): void {
    this.stop ??= error;
    this.controller.abort();
  }

  /** Amplitude: the ranges still planned cut again, sized from every answer so far. */
  private replan(): void {
    const { api, target, staging, clock } = this.ctx;
    const hours = adaptiveHours(api, staging.store, target.source, MAX_HOURS_PER_REQUEST);
    planWindow(api, staging.store, target.source, this.o.window, hours, new Date(clock.now()).toISOString());
  }
}

/**
 * A failure no range's code expected (thrown inside the HTTP client, or a bug): the run stops
 * with it in words, never a stack trace, and the ranges in flight are undone as on Ctrl-C.
 */
export function unexpectedFailure(error: unknown): MigrateError {
  if (error instanceof MigrateError) return error;
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new RemoteError(`the fetch stopped on an unexpected failure (${redact(what)}); the ranges being fetched were undone, nothing of them is staged`, [
    'Run the same command again: only the ranges not done are fetched.',
  ]);
}

export function fetchRanges(base: Context, o: LoopOptions): Promise<LoopResult> {
  return new Loop(base, o).run();
}

function totalsOf(ranges: readonly RangeResult[]): StageApiResult['totals'] {
  const totals: StageApiResult['totals'] = { ...emptyCounts(), rejectedByReason: {}, skippedByReason: {} };
  for (const range of ranges) {
    for (const key of COUNT_KEYS) totals[key] += range[key];
    addByReason(totals.rejectedByReason, range.rejectedByReason);
    addByReason(totals.skippedByReason, range.skippedByReason);
  }
  return totals;
}

function ledgerOf(store: StagingStore, ctx: Context, window: Span): StageApiResult['ledger'] {
  const ledger = { done: 0, empty: 0, failed: 0, pending: 0 };
  for (const row of rangesIn(ctx.api, store, ctx.target.source, window)) {
    if (row.status === 'fetching') ledger.pending++;
    else ledger[row.status]++;
  }
  return ledger;
}

export interface RunFacts {
  window: Span & { cappedFrom?: string };
  recovered: string[];
  loop: LoopResult;
  noData: boolean;
  elapsedMs: number;
  alreadyDone: { ranges: number; units: number };
}

export function summarise(store: StagingStore, ctx: Context, facts: RunFacts): StageApiResult {
  const bounds = ctx.api.bounds(facts.window);
  return {
    staging: store.path,
    source: ctx.target.source,
    vendor: ctx.api.vendor,
    unit: ctx.api.unit,
    window: { ...bounds, cappedFrom: facts.window.cappedFrom ?? null },
    alreadyDone: facts.alreadyDone,
    ranges: facts.loop.ranges,
    totals: totalsOf(facts.loop.ranges),
    ledger: ledgerOf(store, ctx, facts.window),
    recovered: facts.recovered,
    requests: facts.loop.ranges.reduce((sum, r) => sum + r.requests, 0),
    noData: facts.noData,
    elapsedMs: facts.elapsedMs,
  };
}
