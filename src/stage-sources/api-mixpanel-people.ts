/**
 * export-source --from mixpanel-api --people, after the events: the project's user profiles,
 * then each configured group key's group profiles, listed page by page through Mixpanel's
 * Engage API and staged as identify-users and identify-groups stage their files. Each page is a
 * range of the ledger (`L<listing>-P<page>`), recorded done with the listing's session once
 * staged, so a re-run goes on at the page after the last one recorded. A session Mixpanel no
 * longer knows starts the listing again (the next listing number); the profiles staged by the
 * earlier one are recognised (same read time, so the same uuids) and not staged twice.
 */
import { rm, writeFile } from 'node:fs/promises';
import { InterruptedError } from '../errors.js';
import { EventKind, type EventKindValue } from '../events/staged-event.js';
import {
  askEngagePage,
  engageForm,
  engageRequest,
  ENGAGE_PACE_CEILING_PER_SEC,
  ENGAGE_QUERIES_PER_HOUR,
  isEndedSession,
  type EngagePage,
  type EngagePlace,
} from '../source-apis/mixpanel-engage-api.js';
import type { QueryCallOptions } from '../source-apis/query-range.js';
import { RequestWindow } from '../source-apis/request-window.js';
import { readerPace } from '../source-apis/reader-pace.js';
import { findFormat } from '../sources/formats.js';
import { addPendingRanges, markDone, markEmpty, markFetching, markPending, noteRequest, rangeName, rangesOf, requestTimes, undoRangeReads, type RangeRow } from '../staging/source-ranges.js';
import { count, duration } from '../util/format.js';
import { redact } from '../util/redact.js';
import type { RangeRunContext } from './api-range-run.js';
import { stopOn, type PeoplePart } from './posthog-people.js';
import { spoolFile } from './spool.js';
import { stageRange } from './stage-range.js';

const HOUR_MS = 3_600_000;
/** Listings started again in one run before the part is given up (a session that keeps ending). */
const MAX_RESTARTS = 3;

export interface MixpanelPeopleTarget {
  /** The Query API's base URL (the region's mixpanel.com, or apiHost). */
  queryBaseUrl: string;
  projectId: string;
  /** Group keys whose profiles are read, with Mixpanel's `data_group_id` of each. */
  groups: Readonly<Record<string, string>>;
  /** --max-requests-per-hour (at most the Query API's 60; 0: none). */
  maxPerHour?: number;
}

type Context = Omit<RangeRunContext, 'stagingTurn'>;

/** What a page of the ledger recorded. */
interface PageMark {
  listing: number;
  page: number;
  sessionId?: string;
  readIso: string;
  total?: number;
  pageSize: number;
  last: boolean;
}

interface Listing {
  part: string;
  source: string;
  format: 'users-mixpanel-profiles' | 'groups-mixpanel-profiles';
  kind: EventKindValue;
  readerOptions: Record<string, unknown>;
  dataGroupId?: string;
}

const bounds = (listing: number, page: number) => {
  const name = `L${String(listing).padStart(3, '0')}-P${String(page).padStart(6, '0')}`;
  return { start: name, end: name };
};

/** The pages recorded done, in order. */
function marks(rows: readonly RangeRow[]): PageMark[] {
  return rows.filter((r) => r.status === 'done' || r.status === 'empty').map((r) => JSON.parse(r.options) as PageMark);
}

/** Where a listing goes on: after its last page recorded, or from the start; undefined when it is complete. */
function resumePoint(rows: readonly RangeRow[], nowMs: number): { listing: number; place: EngagePlace; readIso: string; pages: PageMark[] } | undefined {
  const done = marks(rows).sort((a, b) => a.listing - b.listing || a.page - b.page);
  const latest = done.at(-1);
  if (latest === undefined) return { listing: 1, place: { page: 0 }, readIso: new Date(nowMs).toISOString(), pages: [] };
  if (latest.last) return undefined;
  const pages = done.filter((m) => m.listing === latest.listing);
  return { listing: latest.listing, place: { sessionId: latest.sessionId, page: latest.page + 1 }, readIso: latest.readIso, pages };
}

function callOptions(ctx: Context, target: MixpanelPeopleTarget, onRequest: () => void): QueryCallOptions {
  return {
    http: ctx.http,
    request: engageRequest(target.queryBaseUrl, ctx.target.authorization),
    timeoutMs: ctx.idleTimeoutMs,
    policy: ctx.policy,
    clock: ctx.clock,
    signal: ctx.signal,
    window: ctx.window,
    onWait: () => undefined,
    onRequest,
    onRetry: (reason, ms) => ctx.progress.notice(`Mixpanel profiles: ${reason}; retrying in ${Math.ceil(ms / 1000)} s`),
    splitsOn: () => false,
  };
}

/** The wait for the hourly limit, with the pages left and the time they should take at `perHour` queries an hour. */
function waitLine(part: string, waitMs: number, perHour: number, page: number, pageSize: number, total: number | undefined): string {
  const pages = total === undefined ? undefined : Math.max(page + 1, Math.ceil(total / pageSize));
  const left = pages === undefined ? 0 : pages - page;
  const leftMs = waitMs + Math.max(0, Math.ceil((left - perHour) / perHour)) * HOUR_MS;
  const of = pages === undefined ? '' : ` of ${count(pages)}`;
  return `Mixpanel ${part}: page ${count(page + 1)}${of} waits ${duration(waitMs)} for the Query API's limit (${perHour} an hour); about ${duration(leftMs)} left`;
}

/** Stages one page; its counts, or why it cannot be recorded. */
async function stagePage(ctx: Context, l: Listing, name: string, page: EngagePage, readIso: string): Promise<{ rowsRead: number; staged: number; alreadyStaged: number; rejected: number }> {
  const spool = spoolFile(ctx.spoolDir, name);
  // The profiles as Mixpanel gave them, one a line: read as a profile file is (sources/vendors/mixpanel-profiles.ts).
  await writeFile(spool, page.results.map((r) => `${JSON.stringify(r)}\n`).join(''));
  try {
    const ingestion = ctx.staging.rules.ingestion;
    const rules = { ...ctx.staging.rules, kind: l.kind, identityPairs: undefined, ...(ingestion === undefined ? {} : { ingestion: { ...ingestion, importSource: 'mixpanel-profiles' } }) };
    // Profiles without $last_seen are updates at the listing's time: the same in every listing, so a profile listed again is recognised.
    const defaultTimestampMs = Date.parse(readIso);
    const readerOptions = { ...l.readerOptions, defaultTimestampMs };
    const staging = { ...ctx.staging, format: l.format, source: findFormat(l.format)!, archive: false, readerOptions, rules, defaultTimestampMs };
    const staged = await stageRange(staging, spool, name, () => undefined);
    const sum = { rowsRead: 0, staged: 0, alreadyStaged: 0, rejected: 0 };
    for (const f of staged.files) for (const key of Object.keys(sum) as Array<keyof typeof sum>) sum[key] += f[key];
    return sum;
  } finally {
    await rm(spool, { force: true });
  }
}

/** Where a listing stands in this run. */
interface ListingRun {
  listing: number;
  place: EngagePlace;
  readIso: string;
  /** The last page recorded: its session, the total and the page size Mixpanel gave. */
  known?: PageMark;
  restarts: number;
  result: PeoplePart;
}

const nowIsoOf = (ctx: Context) => new Date(ctx.clock.now()).toISOString();

/** Records a page answered: staged whole, then marked done with its session; an error when fewer rows were read than it held. */
async function recordPage(ctx: Context, l: Listing, run: ListingRun, row: RangeRow, page: EngagePage): Promise<string | undefined> {
  const store = ctx.staging.store;
  const name = rangeName(l.source, row);
  const counts = await stagePage(ctx, l, name, page, run.readIso);
  if (counts.rowsRead !== page.results.length) {
    undoRangeReads(store, l.source, row, 'fewer rows read than profiles');
    markPending(store, row.id, `${page.results.length} profiles, ${counts.rowsRead} read`);
    return `${name}: ${page.results.length} profiles on the page, ${counts.rowsRead} read`;
  }
  for (const key of ['rowsRead', 'staged', 'alreadyStaged', 'rejected'] as const) run.result[key] += counts[key];
  const mark: PageMark = {
    listing: run.listing,
    page: run.place.page,
    sessionId: page.sessionId,
    readIso: run.readIso,
    total: page.total ?? run.known?.total,
    pageSize: page.pageSize,
    last: page.last,
  };
  run.known = mark;
  if (counts.rowsRead === 0) markEmpty(store, row.id, { ...mark }, nowIsoOf(ctx));
  else markDone(store, row.id, { bytes: 0, rowsRead: counts.rowsRead, rowsStaged: counts.staged, rowsRejected: counts.rejected }, { ...mark }, nowIsoOf(ctx));
  const of = mark.total === undefined ? '' : ` of ${count(mark.total)}`;
  ctx.progress.line(`Mixpanel ${l.part}: page ${count(run.place.page + 1)} staged (${count(run.result.rowsRead)} profiles read in this run${of})`);
  return undefined;
}

/** One page asked for, staged and recorded: `more` to go on, `done` after the last, or why the part stops here. */
async function onePage(ctx: Context, target: MixpanelPeopleTarget, l: Listing, run: ListingRun): Promise<'more' | 'done' | { error: string }> {
  const store = ctx.staging.store;
  const b = bounds(run.listing, run.place.page);
  addPendingRanges(store, l.source, [b], nowIsoOf(ctx));
  const row = rangesOf(store, l.source).find((r) => r.start === b.start)!;
  markFetching(store, row.id);
  try {
    const perHour = target.maxPerHour ?? ENGAGE_QUERIES_PER_HOUR;
    const call = {
      ...callOptions(ctx, target, () => noteRequest(store, row.id, nowIsoOf(ctx))),
      onWait: (ms: number) => ctx.progress.notice(waitLine(l.part, ms, perHour, run.place.page, run.known?.pageSize ?? 1000, run.known?.total)),
    };
    const asked = await askEngagePage(call, engageForm(target.projectId, run.place, l.dataGroupId), run.place);
    if (asked.ok) {
      const error = await recordPage(ctx, l, run, row, asked.page);
      if (error !== undefined) return { error };
      if (asked.page.last) return 'done';
      run.place = { sessionId: asked.page.sessionId, page: run.place.page + 1 };
      return 'more';
    }
    if (isEndedSession(asked.result, run.place) && run.restarts < MAX_RESTARTS) {
      store.db.prepare('DELETE FROM source_ranges WHERE id = ?').run(row.id);
      ctx.progress.notice(`Mixpanel ${l.part}: the listing's session ended at page ${run.place.page + 1}; listing again from the start (profiles already staged are recognised)`);
      Object.assign(run, { restarts: run.restarts + 1, listing: run.listing + 1, place: { page: 0 } });
      return 'more';
    }
    const stop = stopOn(asked.result, `profiles (${l.part})`, ctx.target.credentialSettings, 'Mixpanel');
    if (typeof stop !== 'string') throw stop;
    markPending(store, row.id, redact(stop));
    return { error: stop };
  } catch (error) {
    undoRangeReads(store, l.source, b, (error as Error).message);
    markPending(store, row.id, error instanceof InterruptedError ? null : redact((error as Error).message));
    throw error;
  }
}

/** Lists one part (the users, or one group key's groups) from where the ledger left it, each page staged and recorded. */
async function stageListing(ctx: Context, target: MixpanelPeopleTarget, l: Listing): Promise<PeoplePart> {
  const result: PeoplePart = { part: l.part, status: 'done', rowsRead: 0, staged: 0, alreadyStaged: 0, rejected: 0 };
  const start = resumePoint(rangesOf(ctx.staging.store, l.source), ctx.clock.now());
  if (start === undefined) {
    ctx.progress.notice(`Mixpanel ${l.part}: listed completely by an earlier run; not read again`);
    return result;
  }
  if (start.place.page > 0) ctx.progress.notice(`Mixpanel ${l.part}: going on at page ${start.place.page + 1} of the listing an earlier run began`);
  const run: ListingRun = { listing: start.listing, place: start.place, readIso: start.readIso, known: start.pages.at(-1), restarts: 0, result };
  for (;;) {
    if (ctx.signal.aborted) throw new InterruptedError('interrupted');
    const step = await onePage(ctx, target, l, run);
    if (step === 'done') return result;
    if (step !== 'more') return { ...result, status: 'failed', error: step.error };
  }
}

/** The most queries an hour: the Query API's 60, or fewer with --max-requests-per-hour (0: no limit). */
function perHourOf(maxPerHour: number | undefined): number {
  return maxPerHour === undefined ? ENGAGE_QUERIES_PER_HOUR : Math.min(maxPerHour, ENGAGE_QUERIES_PER_HOUR);
}

/** The Query API's own hourly window (not the export's), counting the requests of the last hour the ledger recorded for these listings. */
function queryWindow(ctx: Context, sources: readonly string[], perHour: number): RequestWindow {
  const since = new Date(ctx.clock.now() - HOUR_MS).toISOString();
  const seed = sources.flatMap((s) => requestTimes(ctx.staging.store, s, since)).map((at) => Date.parse(at));
  if (perHour <= 0) return new RequestWindow([], ctx.clock, seed);
  return new RequestWindow([{ max: perHour, windowMs: HOUR_MS }], ctx.clock, seed, readerPace(ENGAGE_PACE_CEILING_PER_SEC));
}

/** Stages the user profiles, then each group key's group profiles; throws what must stop the run. */
export async function stageMixpanelPeople(ctx: Context, target: MixpanelPeopleTarget): Promise<PeoplePart[]> {
  const base = ctx.target.source;
  const listings: Listing[] = [
    { part: 'persons', source: `${base}#persons`, format: 'users-mixpanel-profiles', kind: EventKind.person, readerOptions: {} },
    ...Object.entries(target.groups).map(
      ([key, id]): Listing => ({
        part: `groups:${key}`,
        source: `${base}#groups:${key}`,
        format: 'groups-mixpanel-profiles',
        kind: EventKind.group,
        readerOptions: { groupType: key },
        dataGroupId: id,
      }),
    ),
  ];
  const perHour = perHourOf(target.maxPerHour);
  const queryCtx = {
    ...ctx,
    window: queryWindow(
      ctx,
      listings.map((l) => l.source),
      perHour,
    ),
  };
  const parts: PeoplePart[] = [];
  for (const listing of listings) parts.push(await stageListing(queryCtx, { ...target, maxPerHour: perHour }, listing));
  return parts;
}
