/**
 * Heap's sessions whose start the event rows do not carry. Heap names a session by its
 * `session_id` (per user); an event table may have no `session_time`, or one that counts the
 * seconds since the session began rather than its start. PostHog's sessions table keeps only
 * UUIDv7 ids, filed by the time in the id, so each such session's `$session_id` is a UUIDv7 whose
 * time is the session's first event, worked out after staging over every file staged so far:
 * the same in any file order, split over runs, or with the session's events in two dumps.
 *
 * A session's id is fixed once a project received one of its events: PostHog keeps what it
 * received, so a row staged later (an earlier event of that session in a later dump) gets the
 * id its session's other events carry rather than splitting the session in two.
 */
import { heapSessionUuid } from '../sources/vendors/heap-session.js';
import type { DerivedRows } from '../staging/derived-rows.js';
import { collectHeapSessionRows, dropOrphanHeapSessionRows, HeapSessionTables, heapSessionTotals, type HeapSessionKey } from '../staging/heap-session-store.js';
import type { ScanScope } from '../staging/pass-state.js';
import type { StagingStore } from '../staging/staging-store.js';

/** Sessions worked out per transaction. */
const SESSIONS_PER_TRANSACTION = 1000;

export interface HeapSessionPassResult {
  /** This run: events given a session id, or another one. */
  updated: number;
  /** The whole staging file: Heap events given a session id after staging, and their sessions. */
  totals: { events: number; sessions: number };
}

/** The start a session's rows are to carry: its first event's, unless a project already has the one recorded. */
function settledStart(tables: HeapSessionTables, derived: DerivedRows, key: HeapSessionKey, firstMs: number): number {
  const recorded = tables.recordedStart(key);
  if (recorded === undefined || recorded === firstMs) return firstMs;
  const recordedId = heapSessionUuid(key.user, key.session, recorded);
  for (const row of tables.rows(key)) {
    const event = tables.event(row.uuid);
    if (event !== undefined && event.sessionId === recordedId && derived.isDelivered(event.seq)) return recorded;
  }
  return firstMs;
}

/** Gives one session's rows their id; the number of rows changed. */
function settleSession(tables: HeapSessionTables, derived: DerivedRows, key: HeapSessionKey): number {
  const rows = tables.rows(key);
  if (rows.length === 0) {
    tables.forgetSession(key);
    return 0;
  }
  const startMs = settledStart(tables, derived, key, rows[0]!.timestampMs);
  const sessionId = heapSessionUuid(key.user, key.session, startMs);
  let updated = 0;
  for (const row of rows) {
    const event = tables.event(row.uuid);
    if (event === undefined || event.sessionId === sessionId || derived.isDelivered(event.seq)) continue;
    tables.setSessionId(event.seq, sessionId);
    updated++;
  }
  tables.recordStart(key, startMs);
  return updated;
}

export function runHeapSessionPass(store: StagingStore, derived: DerivedRows, scope: ScanScope): HeapSessionPassResult {
  store.transaction(() => {
    if (scope.rowsRemoved) dropOrphanHeapSessionRows(store);
    collectHeapSessionRows(store, scope.fromSeq);
  });
  const tables = new HeapSessionTables(store);
  let updated = 0;
  let after: HeapSessionKey = { user: '', session: '' };
  for (;;) {
    const keys = tables.dirty(after, SESSIONS_PER_TRANSACTION);
    if (keys.length === 0) break;
    store.transaction(() => {
      for (const key of keys) {
        updated += settleSession(tables, derived, key);
        tables.done(key);
      }
    });
    after = keys[keys.length - 1]!;
  }
  return { updated, totals: heapSessionTotals(store) };
}
