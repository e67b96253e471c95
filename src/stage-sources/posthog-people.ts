/**
 * export-source --from posthog-api, after the events: the source project's persons (every
 * distinct id linked to its person) and groups (one part per group type, matched by name at
 * the destination), each read whole and staged as identify-users and identify-groups stage
 * their files. Each part is a range of the ledger (named after the run), so a kill leaves it
 * to be undone; it is read again by every run, and staging keeps only what changed.
 */
import { AuthError, InterruptedError, RemoteError } from '../errors.js';
import { readGroups, readGroupTypes, readPersons, type PeopleRead } from '../source-apis/posthog-people-read.js';
import { GROUP_ROLES, PERSON_ROLES } from '../source-apis/posthog-people-queries.js';
import type { QueryCallOptions } from '../source-apis/query-range.js';
import type { DownloadResult } from '../source-apis/range-download.js';
import { findFormat } from '../sources/formats.js';
import { EventKind, type EventKindValue } from '../events/staged-event.js';
import { addPendingRanges, markDone, markEmpty, markFailed, markFetching, markPending, rangeName, rangesOf, undoRangeReads, type RangeRow } from '../staging/source-ranges.js';
import { redact } from '../util/redact.js';
import type { RangeRunContext } from './api-range-run.js';
import { spoolFile } from './spool.js';
import { stageRange } from './stage-range.js';
import { rm } from 'node:fs/promises';

export interface PeoplePart {
  /** `persons`, or `groups:<type>`. */
  part: string;
  status: 'done' | 'empty' | 'failed';
  rowsRead: number;
  staged: number;
  alreadyStaged: number;
  rejected: number;
  error?: string;
}

type Context = Omit<RangeRunContext, 'stagingTurn'>;

function callOptions(ctx: Context): QueryCallOptions {
  return {
    http: ctx.http,
    request: ctx.api.request(ctx.target, { first: 0, last: 0 }),
    timeoutMs: ctx.idleTimeoutMs,
    policy: ctx.policy,
    clock: ctx.clock,
    signal: ctx.signal,
    window: ctx.window,
    onWait: (ms) => ctx.progress.waiting(ms),
    onRequest: () => undefined,
    onRetry: (reason, ms) => ctx.progress.notice(`PostHog persons and groups: ${reason}; retrying in ${Math.ceil(ms / 1000)} s`),
    splitsOn: () => false,
  };
}

/** A refusal that stops the run, as for the events' windows (also Mixpanel's profiles: api-mixpanel-people.ts). */
export function stopOn(result: DownloadResult, what: string, credentials: string, vendor = 'PostHog'): Error | string {
  if (result.type === 'abandoned') return new InterruptedError('interrupted');
  if (result.type === 'gave-up') return `${vendor} kept failing for the ${what} (${result.reason})`;
  const verdict = result.verdict;
  // The table is read whole: a query too slow leaves the part failed (the events still staged), to read again next run.
  if (verdict.type === 'too-slow') return `${vendor} found the query for the ${what} too slow (HTTP ${verdict.status}: ${verdict.message.slice(0, 160)})`;
  if (verdict.type === 'fatal' && verdict.kind === 'auth') return new AuthError(`${vendor} refused the credentials (HTTP ${verdict.status ?? '?'}: ${verdict.message}); check ${credentials}`);
  const message = verdict.type === 'rejected' ? verdict.message : 'reason' in verdict ? verdict.reason : 'message' in verdict ? verdict.message : 'no answer';
  return new RemoteError(`${vendor} refused the query for the ${what}: ${message}`);
}

interface PartSpec {
  part: string;
  format: 'users-jsonl' | 'groups-jsonl';
  kind: EventKindValue;
  readerOptions: Record<string, unknown>;
  read(spoolPath: string): Promise<PeopleRead>;
}

/** This run's ledger row for a part; rows an earlier run left pending are dropped (a part is read whole each run). */
function partRow(ctx: Context, source: string, stamp: string): RangeRow {
  const store = ctx.staging.store;
  store.db.prepare("DELETE FROM source_ranges WHERE source = ? AND status IN ('pending', 'failed')").run(source);
  addPendingRanges(store, source, [{ start: stamp, end: stamp }], new Date(ctx.clock.now()).toISOString());
  return rangesOf(store, source).find((r) => r.start === stamp)!;
}

async function stagePart(ctx: Context, spec: PartSpec, stamp: string): Promise<PeoplePart> {
  const store = ctx.staging.store;
  const source = `${ctx.target.source}#${spec.part}`;
  const row = partRow(ctx, source, stamp);
  const name = rangeName(source, row);
  const spool = spoolFile(ctx.spoolDir, name);
  const result: PeoplePart = { part: spec.part, status: 'failed', rowsRead: 0, staged: 0, alreadyStaged: 0, rejected: 0 };
  const nowIso = () => new Date(ctx.clock.now()).toISOString();
  markFetching(store, row.id);
  try {
    ctx.progress.notice(`PostHog ${spec.part}: reading`);
    const read = await spec.read(spool);
    if (read.type !== 'read') {
      const stop = stopOn(read, spec.part, ctx.target.credentialSettings);
      if (typeof stop !== 'string') throw stop;
      markFailed(store, row.id, redact(stop), nowIso());
      return { ...result, error: stop };
    }
    if (read.rows !== read.expected || read.rows !== read.recounted) {
      const counts = read.recounted === read.expected ? `${read.expected}` : `${read.expected} before and ${read.recounted} after the pages`;
      const error = `PostHog counts ${counts} rows of ${spec.part === 'persons' ? 'persons and distinct ids' : spec.part} but paging read ${read.rows}; read again by the next run`;
      markFailed(store, row.id, error, nowIso());
      return { ...result, error };
    }
    const staging = { ...ctx.staging, format: spec.format, source: findFormat(spec.format)!, archive: false, readerOptions: spec.readerOptions, rules: { ...ctx.staging.rules, kind: spec.kind } };
    const staged = await stageRange(staging, spool, name, () => undefined);
    for (const file of staged.files) {
      result.rowsRead += file.rowsRead;
      result.staged += file.staged;
      result.alreadyStaged += file.alreadyStaged;
      result.rejected += file.rejected;
    }
    if (result.rowsRead !== read.lines) {
      undoRangeReads(store, source, row, 'fewer rows read than written');
      markFailed(store, row.id, `${read.lines} lines written, ${result.rowsRead} read`, nowIso());
      return { ...result, status: 'failed', error: `${read.lines} lines written, ${result.rowsRead} read` };
    }
    const counts = { bytes: 0, rowsRead: result.rowsRead, rowsStaged: result.staged, rowsRejected: result.rejected };
    if (result.rowsRead === 0) markEmpty(store, row.id, {}, nowIso());
    else markDone(store, row.id, counts, {}, nowIso());
    return { ...result, status: result.rowsRead === 0 ? 'empty' : 'done' };
  } catch (error) {
    undoRangeReads(store, source, row, (error as Error).message);
    markPending(store, row.id, error instanceof InterruptedError ? null : redact((error as Error).message));
    throw error;
  } finally {
    await rm(spool, { force: true });
  }
}

/** Stages the persons and the groups of every group type; throws what must stop the run. */
export async function stagePostHogPeople(ctx: Context): Promise<PeoplePart[]> {
  const call = callOptions(ctx);
  const stamp = new Date(ctx.clock.now()).toISOString().replace(/[-:]/g, '').slice(0, 15);
  const parts: PeoplePart[] = [];
  parts.push(
    await stagePart(
      ctx,
      {
        part: 'persons',
        format: 'users-jsonl',
        kind: EventKind.person,
        readerOptions: { columns: { ...PERSON_ROLES } },
        read: (spool) => readPersons(call, ctx.queryState, spool, (text) => ctx.progress.notice(text)),
      },
      stamp,
    ),
  );
  const types = await readGroupTypes(call, `${ctx.target.baseUrl}/api/projects/${ctx.target.projectId ?? ''}/groups_types/`);
  if (!types.ok) {
    const stop = stopOn(types.result, 'group types', ctx.target.credentialSettings);
    if (typeof stop !== 'string') throw stop;
    return [...parts, { part: 'groups', status: 'failed', rowsRead: 0, staged: 0, alreadyStaged: 0, rejected: 0, error: stop }];
  }
  for (const type of types.types) {
    parts.push(
      await stagePart(
        ctx,
        {
          part: `groups:${type.name}`,
          format: 'groups-jsonl',
          kind: EventKind.group,
          readerOptions: { columns: { ...GROUP_ROLES }, keyColumn: GROUP_ROLES.group_key, groupType: type.name },
          read: (spool) => readGroups(call, ctx.queryState, type.index, spool),
        },
        stamp,
      ),
    );
  }
  return parts;
}
