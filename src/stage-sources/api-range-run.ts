/**
 * One range of a source API, from pending to done: marked as being fetched (so a crash leaves
 * it to be undone), downloaded through the retry loop into a spool file, judged (data, nothing
 * there, too large, failed, or a reason to stop), then staged while no other range stages. Any
 * failure undoes every read of the range: a range is staged completely or not at all.
 */
import { rm } from 'node:fs/promises';
import type { SourceApiTarget } from '../config/resolve-source.js';
import { AuthError, InputError, InterruptedError, PreflightError, RemoteError, type MigrateError } from '../errors.js';
import type { HttpClient } from '../http/http-client.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import { halves, type Span } from '../source-apis/api-ranges.js';
import type { ApiSource, RangeVerdict } from '../source-apis/api-source.js';
import { downloadRange } from '../source-apis/range-download.js';
import { queryRange, type QueryState } from '../source-apis/query-range.js';
import type { RequestWindow } from '../source-apis/request-window.js';
import { markDone, markEmpty, markFailed, markFetching, markPending, noteRequest, rangeName, rangeStatus, splitRange, undoRangeReads, type RangeRow } from '../staging/source-ranges.js';
import { addByReason, COUNT_KEYS, emptyCounts, type ReadCounts } from '../staging/source-reads.js';
import type { Clock } from '../util/clock.js';
import { redact } from '../util/redact.js';
import type { ApiProgress } from './api-progress.js';
import { stageRange, type RangeStaging } from './stage-range.js';
import type { FileSummary } from './stage-file-options.js';
import { expectedBytes } from './api-plan.js';
import { checkSpoolRoom, spoolFile } from './spool.js';

export interface RangeResult extends ReadCounts {
  start: string;
  end: string;
  /** The name its reads and rejects carry. */
  name: string;
  status: 'done' | 'empty' | 'split' | 'failed' | 'pending';
  /** Requests made for it in this run. */
  requests: number;
  bytes: number;
  rejectedByReason: Record<string, number>;
  skippedByReason: Record<string, number>;
  firstRejects: Array<{ file: string; line: number; field: string; reason: string; message: string }>;
  error?: string;
}

export interface RangeRunContext {
  api: ApiSource;
  target: SourceApiTarget & { projectId?: string };
  http: HttpClient;
  clock: Clock;
  policy: RetryPolicy;
  idleTimeoutMs: number;
  window: RequestWindow;
  spoolDir: string;
  staging: RangeStaging;
  /** Options recorded with each done range (the project time zone). */
  rangeOptions: Record<string, unknown>;
  progress: ApiProgress;
  /** Aborted by the user, or by another range's reason to stop. */
  signal: AbortSignal;
  /** A query API: the instance's row cap and time zone, learned as the run goes. */
  queryState: QueryState;
  /** Ranges stage one at a time: one connection writes, and workers are per file already. */
  stagingTurn<T>(work: () => Promise<T>): Promise<T>;
}

function emptyResult(row: RangeRow, name: string): RangeResult {
  return {
    start: row.start,
    end: row.end,
    name,
    status: 'pending',
    requests: 0,
    bytes: 0,
    rejectedByReason: {},
    skippedByReason: {},
    firstRejects: [],
    ...emptyCounts(),
  };
}

function addFile(result: RangeResult, file: FileSummary): void {
  for (const key of COUNT_KEYS) result[key] += file[key];
  addByReason(result.rejectedByReason, file.rejectedByReason);
  addByReason(result.skippedByReason, file.skippedByReason);
  for (const reject of file.firstRejects) {
    if (result.firstRejects.length < 5) result.firstRejects.push({ file: file.displayName, line: reject.line, field: reject.field, reason: reject.reason, message: reject.message });
  }
}

/** The error that stops the run, for a verdict of `stop`. */
function stopError(verdict: Extract<RangeVerdict, { type: 'stop' }>): MigrateError {
  return verdict.kind === 'auth' ? new AuthError(verdict.message) : new RemoteError(verdict.message);
}

function nowIso(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}

export class RangeRun {
  private readonly name: string;
  private readonly spool: string;
  readonly result: RangeResult;
  /** Rows the source counted in the range, when it says (a query API): what staging must read. */
  private expectedRows: number | undefined;

  constructor(
    private readonly ctx: RangeRunContext,
    private readonly row: RangeRow,
    private readonly span: Span,
  ) {
    this.name = rangeName(ctx.target.source, row);
    this.spool = spoolFile(ctx.spoolDir, this.name);
    this.result = emptyResult(row, this.name);
  }

  /** Fetches and stages the range; throws what must stop the run (credentials refused, interrupted, disk full). */
  async run(): Promise<RangeResult> {
    const { ctx, row } = this;
    const store = ctx.staging.store;
    markFetching(store, row.id);
    try {
      const verdict = await this.download();
      if (verdict === undefined) throw new InterruptedError('interrupted');
      await this.settle(verdict);
      return this.result;
    } catch (error) {
      // Whatever stopped it, nothing of it is staged: it is fetched again by the next run.
      if (rangeStatus(store, row.id) === 'fetching') markPending(store, row.id, error instanceof InterruptedError ? null : redact((error as Error).message));
      throw error;
    } finally {
      await rm(this.spool, { force: true });
    }
  }

  private async download(): Promise<RangeVerdict | undefined> {
    const { ctx, row, span } = this;
    const label = ctx.progress.label(row);
    await checkSpoolRoom(ctx.staging.store.path, this.name, expectedBytes(ctx.api, ctx.staging.store, ctx.target.source, span));
    const common = {
      http: ctx.http,
      request: ctx.api.request(ctx.target, span),
      spoolPath: this.spool,
      policy: ctx.policy,
      clock: ctx.clock,
      signal: ctx.signal,
      window: ctx.window,
      onWait: (ms: number) => ctx.progress.waiting(ms),
      onRequest: () => {
        this.result.requests++;
        noteRequest(ctx.staging.store, row.id, nowIso(ctx.clock));
      },
      onRetry: (reason: string, ms: number) => ctx.progress.notice(`${label}: ${reason}; retrying in ${ms < 1000 ? `${ms} ms` : `${Math.ceil(ms / 1000)} s`}`),
      splitsOn: (status: number | undefined) => ctx.api.splitsOn(status, span),
    };
    let download;
    try {
      if (ctx.api.fetchBy === 'query') {
        download = await queryRange({ ...common, span, state: ctx.queryState, timeoutMs: ctx.idleTimeoutMs, onRows: (rows, expected) => ctx.progress.reading(row, rows, expected) });
        if (download.type === 'read') return this.read(download);
      } else {
        download = await downloadRange({
          ...common,
          idleTimeoutMs: ctx.idleTimeoutMs,
          onBytes: (bytes) => ctx.progress.downloading(row, bytes),
          answerProblem: (sample) => ctx.api.answerProblem(sample),
        });
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOSPC') {
        throw new PreflightError(`the disk next to the staging file filled up while downloading ${this.name}; nothing of it was staged`, [
          'Free disk space there, or put the staging file on a larger disk (--staging <file>), and run the same command again.',
        ]);
      }
      throw error;
    }
    if (download.type === 'abandoned') return undefined;
    if (download.type === 'answered') this.result.bytes = download.bytes;
    const verdict = ctx.api.judge(download.verdict, download.status, span, ctx.target);
    if (download.type === 'gave-up' && verdict.type === 'failed') return { type: 'failed', message: `${verdict.message}; ${download.reason}` };
    return verdict;
  }

  /** A window read through a query API: data only when every row its count promised came. */
  private read(read: { bytes: number; rows: number; expected: number; recounted: number }): RangeVerdict {
    this.result.bytes = read.bytes;
    this.expectedRows = read.expected;
    const vendor = this.ctx.api.vendor;
    if (read.rows !== read.expected) {
      return {
        type: 'failed',
        message: `${vendor} counts ${read.expected} events in ${this.name} but paging read ${read.rows} (events still arriving, or copies not merged yet in the source); the window is left to the next run`,
      };
    }
    if (read.recounted !== read.rows) {
      return {
        type: 'failed',
        message: `${vendor} counts ${read.recounted} events in ${this.name} after paging read ${read.rows} (events arrived or went while it was read); the window is left to the next run`,
      };
    }
    return read.rows === 0 ? { type: 'empty' } : { type: 'data' };
  }

  private async settle(verdict: RangeVerdict): Promise<void> {
    const { ctx, row } = this;
    const store = ctx.staging.store;
    const label = ctx.progress.label(row);
    switch (verdict.type) {
      case 'data':
        return this.stage();
      case 'empty':
        markEmpty(store, row.id, ctx.rangeOptions, nowIso(ctx.clock));
        this.result.status = 'empty';
        return;
      case 'split': {
        const [a, b] = halves(this.span);
        splitRange(store, row, [ctx.api.bounds(a), ctx.api.bounds(b)], nowIso(ctx.clock));
        this.result.status = 'split';
        ctx.progress.notice(`${label}: ${verdict.reason}; asking for each half`);
        return;
      }
      case 'failed':
        return this.fail(verdict.message);
      case 'stop':
        this.result.error = verdict.message;
        throw stopError(verdict);
    }
  }

  private fail(message: string): void {
    markFailed(this.ctx.staging.store, this.row.id, redact(message), nowIso(this.ctx.clock));
    this.result.status = 'failed';
    this.result.error = message;
    this.ctx.progress.warn(`${this.ctx.progress.label(this.row)}: failed: ${message}`);
  }

  private async stage(): Promise<void> {
    const { ctx, row } = this;
    const store = ctx.staging.store;
    await ctx.stagingTurn(async () => {
      try {
        const staged = await stageRange(ctx.staging, this.spool, this.name, (counts) => ctx.progress.staging(row, counts));
        for (const file of staged.files) addFile(this.result, file);
      } catch (error) {
        undoRangeReads(store, ctx.target.source, row, (error as Error).message);
        if (error instanceof InputError) return this.fail((error as Error).message);
        throw error;
      }
      if (this.expectedRows !== undefined && this.result.rowsRead !== this.expectedRows) {
        undoRangeReads(store, ctx.target.source, row, 'fewer rows read than the source counted');
        return this.fail(`${this.expectedRows} events counted in the source, ${this.result.rowsRead} read from the answers`);
      }
      const counts = { bytes: this.result.bytes, rowsRead: this.result.rowsRead, rowsStaged: this.result.staged, rowsRejected: this.result.rejected };
      if (this.result.rowsRead === 0) markEmpty(store, row.id, ctx.rangeOptions, nowIso(ctx.clock));
      else markDone(store, row.id, counts, ctx.rangeOptions, nowIso(ctx.clock));
      this.result.status = this.result.rowsRead === 0 ? 'empty' : 'done';
    });
  }
}
