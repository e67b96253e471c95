/**
 * The use case of `export-source --from mixpanel-api | amplitude-api`: fetches a window of days
 * (Mixpanel) or hours (Amplitude) from the source's export API and stages it as the file
 * readers stage its exports, range by range, under the staging lock. Each range is recorded in
 * the staging file's range ledger; a re-run (after a failure, Ctrl-C or kill -9) fetches only
 * the ranges not done, and one with everything done fetches nothing.
 */
import { configPath, loadConfig } from '../config/load-config.js';
import { resolveAmplitude, resolveMixpanel, resolvePostHogSource, type SourceApiTarget } from '../config/resolve-source.js';
import { InterruptedError, RefusedError, UsageError } from '../errors.js';
import { createHttpClient, type HttpClient } from '../http/http-client.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import type { Reporter } from '../reporter.js';
import { dayWindow, hourWindow, type Window } from '../source-apis/api-ranges.js';
import { CLOUD_ROW_CAP } from '../source-apis/posthog-queries.js';
import { findApiSource, type ApiSource, type ApiSourceName } from '../source-apis/api-sources.js';
import { RequestWindow } from '../source-apis/request-window.js';
import { readerPace } from '../source-apis/reader-pace.js';
import { findFormat } from '../sources/formats.js';
import { isLinkFormat } from '../events/identity-pair.js';
import { EventWriter } from '../staging/event-writer.js';
import { rangeName, rangesOf, recoverInterruptedRanges, reopenEmpty, requestTimes } from '../staging/source-ranges.js';
import { lastReadId, markPassesPending } from '../staging/pass-state.js';
import { checkPassOptions, runPasses } from '../passes/run-passes.js';
import { ensureImportRunId } from '../staging/import-run-id.js';
import { StagingStore } from '../staging/staging-store.js';
import { systemClock, type Clock } from '../util/clock.js';
import { ApiProgress } from './api-progress.js';
import { adaptiveHours, fetchedIn, MAX_HOURS_PER_REQUEST, planWindow } from './api-plan.js';
import type { RangeRunContext } from './api-range-run.js';
import { fetchRanges, summarise, unexpectedFailure, type StageApiResult } from './api-ranges-loop.js';
import { prepareSpoolDir, removeSpoolDir } from './spool.js';
import { stagePostHogPeople } from './posthog-people.js';
import { stageMixpanelPeople, type MixpanelPeopleTarget } from './api-mixpanel-people.js';
import type { StageSourcesInput } from './stage-sources.js';

export type { StageApiResult } from './api-ranges-loop.js';

/** The staging file and the rules of the format the API answers in, as file staging takes them. */
export interface StageApiInput extends Pick<StageSourcesInput, 'staging' | 'readerOptions' | 'rules' | 'recordedOptions' | 'workers' | 'ingestion' | 'passes'> {
  api: ApiSourceName;
  /** --config; default $MIGRATE_CONFIG or ./migrate.config.json. */
  config?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** The window as given: days (Mixpanel) or hours (Amplitude), inclusive. */
  start?: string;
  end?: string;
  /** Now, for capping the window at what has settled. */
  nowMs: number;
  /** Most requests an hour, 0 = no limit. Default: the API's (Mixpanel 60, Amplitude none). */
  maxRequestsPerHour?: number;
  /** Requests at once. Default: the API's (Mixpanel 3, Amplitude 1). */
  concurrency?: number;
  /** Amplitude: hours per request, fixed. Default: sized from the data, starting with a day. */
  hoursPerRequest?: number;
  /** posthog-api: the config's project to read. */
  project?: string;
  /** mixpanel-api: also the project's user profiles and the configured group keys' group profiles (Engage API). */
  people?: boolean;
  /** Longest silence of an answer, in ms. */
  idleTimeoutMs: number;
  retryPolicy: RetryPolicy;
}

function resolveTarget(api: ApiSource, input: StageApiInput): SourceApiTarget & { projectId?: string; queryBaseUrl?: string; groupProfiles?: Record<string, string> } {
  const config = loadConfig(input.config);
  const file = configPath(input.config);
  if (api.name === 'posthog-api') {
    if (input.project === undefined) throw new UsageError('--from posthog-api reads a project of the config: give --project <name>');
    return resolvePostHogSource(config, file, input.project, input.env);
  }
  return api.name === 'mixpanel-api' ? resolveMixpanel(config, file, input.env) : resolveAmplitude(config, file, input.env);
}

function mixpanelPeople(target: ReturnType<typeof resolveTarget>, maxPerHour: number | undefined): MixpanelPeopleTarget {
  return { queryBaseUrl: target.queryBaseUrl ?? target.baseUrl, projectId: target.projectId ?? '', groups: target.groupProfiles ?? {}, maxPerHour };
}

function checkOptions(api: ApiSource, input: StageApiInput): number {
  if (input.people === true && api.name !== 'mixpanel-api') throw new UsageError(`--people applies to --from mixpanel-api only (--from posthog-api reads persons and groups always)`);
  const concurrency = input.concurrency ?? api.concurrency.default;
  if (concurrency < 1 || concurrency > api.concurrency.max) {
    throw new UsageError(
      `--api-concurrency ${concurrency}: --from ${api.name} takes 1${api.concurrency.max > 1 ? ` to ${api.concurrency.max}` : ''} request${api.concurrency.max > 1 ? 's' : ''} at once`,
    );
  }
  if (input.hoursPerRequest !== undefined && api.unit !== 'hour') throw new UsageError(`--hours-per-request applies to --from amplitude-api and posthog-api only`);
  if (input.hoursPerRequest !== undefined && (input.hoursPerRequest < 1 || input.hoursPerRequest > 365 * 24)) {
    throw new UsageError('--hours-per-request: 1 to 8760 (Amplitude takes at most 365 days in one request)');
  }
  return concurrency;
}

function windowOf(api: ApiSource, input: StageApiInput): Window {
  return api.unit === 'day' ? dayWindow(input.start, input.end, input.nowMs) : hourWindow(input.start, input.end, input.nowMs);
}

/** A project zone moves every Mixpanel event: days staged with one may not be joined by days with another. */
function refuseChangedZone(store: StagingStore, source: string, options: Record<string, unknown>): void {
  const zone = JSON.stringify(options.timezone ?? null);
  const other = rangesOf(store, source).find((r) => (r.status === 'done' || r.status === 'empty') && JSON.stringify(JSON.parse(r.options).timezone ?? null) !== zone);
  if (other === undefined) return;
  throw new RefusedError(`${rangeName(source, other)} was staged with --timezone ${JSON.parse(other.options).timezone ?? '(none)'}; now ${options.timezone ?? '(none)'}`, [
    'Every day of a project is read in the same zone. Pass the same --timezone, or use a new staging file (--staging) to start over.',
  ]);
}

function recover(store: StagingStore, reporter: Reporter): string[] {
  const ranges = recoverInterruptedRanges(store).map((row) => rangeName(row.source, row));
  for (const name of ranges) reporter.notice(`note: ${name} was interrupted in an earlier run; its rows were removed and it will be fetched again`);
  return ranges;
}

interface RunSetup {
  api: ApiSource;
  input: StageApiInput;
  target: SourceApiTarget & { projectId?: string };
  window: Window;
  store: StagingStore;
  http: HttpClient;
  reporter: Reporter;
  signal: AbortSignal;
  clock: Clock;
}

/** The staging rules with PostHog's ingestion rules for this staging file's `$import_run`, as file staging has them. */
function withImportRun(input: StageApiInput, format: string, store: StagingStore): StageApiInput['rules'] {
  const rules = { ...input.rules, identityPairs: isLinkFormat(format) ? format : undefined };
  return input.ingestion === undefined ? rules : { ...rules, ingestion: { ...input.ingestion, importRun: ensureImportRunId(store) } };
}

/**
 * The request limits of a run and their pace. `--max-requests-per-hour 0` turns both off (a
 * proxy that limits on its own); an API that publishes no hourly limit (Amplitude) is still paced.
 */
function apiWindow(api: ApiSource, maxPerHour: number | undefined, clock: Clock, seed: number[]): RequestWindow {
  if (maxPerHour === 0) return new RequestWindow([], clock, seed);
  return new RequestWindow(api.limits(maxPerHour ?? api.defaultMaxPerHour), clock, seed, readerPace(api.paceCeilingPerSec));
}

/** Plans the window in the ledger and gathers what every range needs; returns what was done before. */
async function prepare(s: RunSetup): Promise<{ ctx: Omit<RangeRunContext, 'signal' | 'stagingTurn'>; done: { ranges: number; units: number } }> {
  const { api, input, target, window, store, clock } = s;
  const rangeOptions = { timezone: input.recordedOptions.timezone ?? null };
  refuseChangedZone(store, target.source, rangeOptions);
  const hours = input.hoursPerRequest ?? adaptiveHours(api, store, target.source, MAX_HOURS_PER_REQUEST);
  planWindow(api, store, target.source, window, hours, new Date(clock.now()).toISOString());
  const done = fetchedIn(api, store, target.source, window);
  const seed = requestTimes(store, target.source, new Date(clock.now() - 3_600_000).toISOString()).map((at) => Date.parse(at));
  const ctx = {
    api,
    target,
    http: s.http,
    clock,
    policy: input.retryPolicy,
    idleTimeoutMs: input.idleTimeoutMs,
    window: apiWindow(api, input.maxRequestsPerHour, clock, seed),
    spoolDir: await prepareSpoolDir(store.path),
    staging: {
      store,
      writer: new EventWriter(store),
      format: api.format,
      source: findFormat(api.format)!,
      archive: api.format === 'amplitude',
      readerOptions: input.readerOptions,
      rules: withImportRun(input, api.format, store),
      recordedOptions: input.recordedOptions,
      workers: input.workers,
      signal: s.signal,
      reporter: s.reporter,
    },
    rangeOptions,
    queryState: { pageRows: CLOUD_ROW_CAP },
    progress: new ApiProgress(s.reporter, api.vendor, api.unit, window.last - window.first + 1, done.units, () => clock.now()),
  };
  return { ctx, done };
}

/**
 * `failure`: aborted by the shell, with the error as its reason, when an error escapes to the
 * process (thrown inside the HTTP client's socket handling): the ranges in flight are undone
 * and the run ends with it in words.
 */
export async function stageFromApi(input: StageApiInput, reporter: Reporter, signal: AbortSignal, clock: Clock = systemClock, http?: HttpClient, failure?: AbortSignal): Promise<StageApiResult> {
  const api = findApiSource(input.api);
  const started = clock.now();
  const concurrency = checkOptions(api, input);
  const window = windowOf(api, input);
  const target = resolveTarget(api, input);
  if (window.cappedFrom !== undefined) {
    reporter.notice(
      `--end ${window.cappedFrom} is later than the last ${api.unit} settled for a day; fetching up to ${api.bounds(window).end} (a range is never fetched twice, so one still filling waits)`,
    );
  }
  const store = StagingStore.open(input.staging, { lockFor: 'export-source' });
  const client = http ?? createHttpClient({ connections: concurrency });
  try {
    const recovered = recover(store, reporter);
    checkPassOptions(store, input.passes ?? {});
    const lastRead = lastReadId(store);
    markPassesPending(store);
    const { ctx, done } = await prepare({ api, input, target, window, store, http: client, reporter, signal, clock });
    const loop = await fetchRanges(ctx, { window, concurrency, fixedHours: input.hoursPerRequest, signal, failure });
    if (signal.aborted) throw interrupted(loop.fetched);
    if (failure?.aborted) throw unexpectedFailure(failure.reason);
    // Another PostHog: its persons and groups too, read whole by every run (staging keeps what changed).
    const people =
      api.name === 'posthog-api'
        ? await stagePostHogPeople({ ...ctx, signal })
        : input.people === true
          ? await stageMixpanelPeople({ ...ctx, signal }, mixpanelPeople(target, input.maxRequestsPerHour))
          : undefined;
    if (signal.aborted) throw interrupted(loop.fetched);
    const noData = neverGaveData(store, target.source) && reopenEmpty(store, target.source, 'no data yet from this source') > 0;
    // Identity links, group updates and sessions are worked out over the whole staging file, as after file staging.
    const passes = runPasses(store, input.passes ?? {}, lastRead);
    return { ...summarise(store, ctx, { window, recovered, loop, noData, elapsedMs: clock.now() - started, alreadyDone: done }), passes, ...(people === undefined ? {} : { people }) };
  } finally {
    store.close();
    await removeSpoolDir(store.path);
    if (http === undefined) await client.close();
  }
}

/**
 * Nothing but "no data" from a source, ever: more likely a wrong project, region or host than
 * an empty project, so no range of it is recorded as empty (the next run asks again). A range
 * with data, or one that failed (the API knows the project), says the answers are real.
 */
function neverGaveData(store: StagingStore, source: string): boolean {
  return !rangesOf(store, source).some((r) => (r.status === 'done' && r.rowsRead > 0) || r.status === 'failed');
}

function interrupted(fetched: number): InterruptedError {
  return new InterruptedError(`interrupted; ${fetched} range${fetched === 1 ? '' : 's'} fetched and staged in this run, the range in progress undone`, [
    'Run the same command again: only the ranges not done are fetched.',
  ]);
}
