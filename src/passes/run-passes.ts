/**
 * The passes after the files of a staging run are staged, over the whole staging file: sessions
 * (--sessionize), identity links, group updates. Each looks only at what changed since the last
 * run (rows staged since, facts of rows taken out), saves its decisions as it goes, and the
 * last transaction records where they got to (see staging/pass-state.ts): idempotent, resumed
 * by the next staging run after a crash, bounded in memory (SQL over indexed tables).
 */
import { RefusedError, StagingError } from '../errors.js';
import { isSqliteError } from '../sqlite/storage-failure.js';
import { abandonRead } from '../staging/source-reads.js';
import { DerivedRows } from '../staging/derived-rows.js';
import { ensureImportRunId } from '../staging/import-run-id.js';
import { loadPassState, readsAfter, savePassState, scanScope, type PassSettings } from '../staging/pass-state.js';
import { sessionizeReads } from '../staging/session-store.js';
import type { StagingStore } from '../staging/staging-store.js';
import { count } from '../util/format.js';
import { DEFAULT_MAX_USERS_PER_DEVICE } from './device-guards.js';
import { runGroupPass, type GroupPassResult } from './group-updates.js';
import { runHeapSessionPass, type HeapSessionPassResult } from './heap-sessions.js';
import { runIdentityPass, type IdentityPassResult } from './identity-links.js';
import { runSessionPass, type SessionPassResult } from './sessionize.js';

export interface PassOptions {
  /** --max-users-per-device; absent: the value the staging file last used, else 5. */
  maxUsersPerDevice?: number;
  /** --sessionize minutes of this run's files; absent when the run asked for none. */
  sessionizeMinutes?: number;
}

export interface PassesResult {
  identity: IdentityPassResult;
  groups: GroupPassResult;
  /** When some read asked for sessions. */
  sessions?: SessionPassResult & { minutes: number };
  /** Heap sessions whose start the rows did not carry. */
  heapSessions: HeapSessionPassResult;
  maxUsersPerDevice: number;
}

/**
 * Refuses, before anything is staged, a --sessionize whose minutes differ from those of the
 * staging file's other reads: sessions are worked out per person over every file at once.
 */
export function checkPassOptions(store: StagingStore, options: PassOptions): void {
  if (options.sessionizeMinutes === undefined) return;
  const other = sessionizeReads(store).find((read) => read.minutes !== options.sessionizeMinutes);
  if (other === undefined) return;
  throw new RefusedError(`--sessionize ${options.sessionizeMinutes}: this staging file's sessions are worked out with --sessionize ${other.minutes}, over every file at once`, [
    `Pass --sessionize ${other.minutes}, or stage these files into a new staging file (--staging other.db).`,
  ]);
}

type Refused = { refused: NonNullable<SessionPassResult['refused']>; minutes: number };

function runAll(store: StagingStore, options: PassOptions): PassesResult | Refused {
  const state = loadPassState(store);
  const scope = scanScope(store, state);
  const previous: PassSettings = state?.settings ?? {};
  const maxUsersPerDevice = options.maxUsersPerDevice ?? previous.maxUsersPerDevice ?? DEFAULT_MAX_USERS_PER_DEVICE;
  const derived = new DerivedRows(store, ensureImportRunId(store));
  derived.stampUnsentOlderRows();
  const reads = sessionizeReads(store);
  const minutes = reads[0]?.minutes;
  const sessions = minutes === undefined ? undefined : { ...runSessionPass(store, derived, scope, reads, minutes), minutes };
  if (sessions?.refused !== undefined) return { refused: sessions.refused, minutes: sessions.minutes };
  const heapSessions = runHeapSessionPass(store, derived, scope);
  const { linkSources, ...identity } = runIdentityPass(store, derived, { scope, maxUsersPerDevice, previous });
  const { groupTypes, ...groups } = runGroupPass(store, derived, scope, previous.groupTypes);
  const settings: PassSettings = { maxUsersPerDevice, sessionizeMinutes: minutes ?? null, linkSources, groupTypes };
  const summary = {
    identity: identity.totals,
    groups: { ...groups.totals, typesLeftOut: groups.typesLeftOut },
    sessions: sessions === undefined ? null : { ...sessions.totals, minutes },
    heapSessions: heapSessions.totals,
  };
  store.transaction(() => savePassState(store, settings, summary));
  return { identity, groups, sessions, heapSessions, maxUsersPerDevice };
}

function sessionRefusal(refused: NonNullable<SessionPassResult['refused']>, minutes: number): RefusedError {
  const examples = refused.examples.map((e) => `  distinct_id ${e.distinctId}, ${e.events === 1 ? 'event' : `${count(e.events)} events`} at ${new Date(e.timestampMs).toISOString()}`);
  return new RefusedError(
    `--sessionize ${minutes}: the files of this run would change the session of ${count(refused.count)} event${refused.count === 1 ? '' : 's'} a project already received ` +
      `(a new event falls within ${minutes} minutes of them, or before their session's start):\n${examples.join('\n')}\nNothing from this run was kept.`,
    [
      'PostHog keeps the session ids it received: the sessions would be split between the old and the new ids.',
      'Stage these files into a new staging file (--staging other.db), or stage them without --sessionize.',
    ],
  );
}

/**
 * Runs the passes; when sessions would change events already delivered, undoes the reads this
 * run began (ids above `lastReadBefore`), brings the passes in line again, and refuses.
 */
export function runPasses(store: StagingStore, options: PassOptions, lastReadBefore: number): PassesResult {
  try {
    return store.bulk(() => {
      const result = runAll(store, options);
      if (!('refused' in result)) return result;
      for (const readId of readsAfter(store, lastReadBefore)) abandonRead(store, readId, 'refused: --sessionize would change the sessions of delivered events');
      runAll(store, options);
      throw sessionRefusal(result.refused, result.minutes);
    });
  } catch (error) {
    throw passFailure(store, error);
  }
}

/**
 * A failure of the passes told in words: a storage failure as the store explains it, any other
 * SQLite error as a staging error (the files' rows are kept; the passes stay pending, so import
 * waits and the next staging run tries them again), never as a stack trace.
 */
function passFailure(store: StagingStore, error: unknown): unknown {
  const explained = store.failure(error);
  if (explained !== error || !isSqliteError(error)) return explained;
  return new StagingError(`the passes after staging (identity links, group updates, session ids) failed on ${store.path}: SQLite said "${(error as Error).message}"`, [
    'The rows of the files are staged and kept; the passes stay pending, so import waits until a staging run finishes them.',
    'Run the same command again; if it fails the same way, keep the staging file aside and report this message.',
  ]);
}
