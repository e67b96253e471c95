/**
 * --sessionize <minutes>: sessions for sources that have none (CSV, JSON lines, Mixpanel,
 * Segment, GA4 events without `ga_session_id`). Per distinct_id, in time order over the whole staging file, a new session
 * starts after that many minutes without an event; each event gets `$session_id`, a UUIDv7
 * whose time is the session's first event, the same on every run. Worked out in SQLite over an
 * index of the events concerned, person by person and in bounded batches, so memory stays flat
 * at 100M events. Staged events are what is sent: the pass updates those not yet delivered, and
 * refuses when a new file would change the session of an event a project already received.
 */
import { sessionUuid } from '../events/derived-uuids.js';
import type { DerivedRows } from '../staging/derived-rows.js';
import type { ScanScope } from '../staging/pass-state.js';
import { collectSessionEvents, dropOrphanSessionEvents, sessionTotals, SessionTables, type SessionRow } from '../staging/session-store.js';
import type { StagingStore } from '../staging/staging-store.js';

/** Rows looked at per transaction, and per page of one person's events. */
const ROWS_PER_TRANSACTION = 5000;
const ROWS_PER_PAGE = 1000;
const EXAMPLES = 3;

export interface SessionPassResult {
  /** This run: events given a session id, or another one. */
  updated: number;
  /** The whole staging file: events with a computed session, and sessions. */
  totals: { events: number; sessions: number };
  /** Delivered events whose session would change: the pass stopped (nothing else changed for them). */
  refused?: { count: number; examples: Array<{ distinctId: string; timestampMs: number; events: number }> };
}

/** The session id of a distinct_id's session that starts at `startMs`. */
export function computedSessionId(distinctId: string, startMs: number): string {
  return sessionUuid(startMs, `sessionize\n${distinctId}\n${startMs}`);
}

/** One person's walk through their events in time order: where each event's session starts. Pure. */
export class SessionWalk {
  private last: number | undefined;
  private start = 0;

  constructor(private readonly gapMs: number) {}

  /** The start of the session of the next event (events in time order). */
  next(timestampMs: number): number {
    if (this.last === undefined || timestampMs - this.last > this.gapMs) this.start = timestampMs;
    this.last = timestampMs;
    return this.start;
  }
}

interface Cursor {
  distinctId: string;
  walk: SessionWalk;
  afterMs: number;
  afterUuid: Uint8Array;
}

class SessionWork {
  readonly result: SessionPassResult = { updated: 0, totals: { events: 0, sessions: 0 } };
  private cursor: Cursor | undefined;
  private afterId = '';
  private queue: string[] = [];
  private conflicts = 0;
  private readonly examples: NonNullable<SessionPassResult['refused']>['examples'] = [];

  constructor(
    private readonly tables: SessionTables,
    private readonly derived: DerivedRows,
    private readonly gapMs: number,
  ) {}

  /** Works through up to ROWS_PER_TRANSACTION rows; false when every person is done. */
  step(): boolean {
    let budget = ROWS_PER_TRANSACTION;
    while (budget > 0) {
      const cursor = this.cursor ?? this.nextPerson();
      if (cursor === undefined) return false;
      const want = Math.min(ROWS_PER_PAGE, budget);
      const rows = this.tables.rowsAfter(cursor.distinctId, cursor.afterMs, cursor.afterUuid, want);
      for (const row of rows) this.settle(cursor, row);
      // A person with no rows left still costs one, so a page of them ends too.
      budget -= rows.length + 1;
      if (rows.length < want) {
        this.tables.done(cursor.distinctId);
        this.cursor = undefined;
      } else {
        cursor.afterMs = rows[rows.length - 1]!.timestampMs;
        cursor.afterUuid = rows[rows.length - 1]!.uuid;
      }
    }
    return true;
  }

  refusal(): SessionPassResult['refused'] {
    return this.conflicts === 0 ? undefined : { count: this.conflicts, examples: this.examples };
  }

  private nextPerson(): Cursor | undefined {
    if (this.queue.length === 0) this.queue = this.tables.dirty(this.afterId, 1000);
    const distinctId = this.queue.shift();
    if (distinctId === undefined) return undefined;
    this.afterId = distinctId;
    this.cursor = { distinctId, walk: new SessionWalk(this.gapMs), afterMs: Number.MIN_SAFE_INTEGER, afterUuid: Buffer.alloc(0) };
    return this.cursor;
  }

  private settle(cursor: Cursor, row: SessionRow): void {
    const start = cursor.walk.next(row.timestampMs);
    if (row.sessionStartMs === start) return;
    const seq = this.tables.seqOf(row.uuid);
    if (seq === undefined) return;
    if (this.derived.isDelivered(seq)) {
      this.conflicts++;
      // Events of one person at one instant are one example (a source with times in seconds has many).
      const same = this.examples.find((e) => e.distinctId === cursor.distinctId && e.timestampMs === row.timestampMs);
      if (same !== undefined) same.events++;
      else if (this.examples.length < EXAMPLES) this.examples.push({ distinctId: cursor.distinctId, timestampMs: row.timestampMs, events: 1 });
      return;
    }
    this.tables.setSession(cursor.distinctId, row, seq, start, computedSessionId(cursor.distinctId, start));
    this.result.updated++;
  }
}

export function runSessionPass(store: StagingStore, derived: DerivedRows, scope: ScanScope, reads: ReadonlyArray<{ id: number }>, minutes: number): SessionPassResult {
  store.transaction(() => {
    if (scope.rowsRemoved) dropOrphanSessionEvents(store);
    collectSessionEvents(
      store,
      reads.map((r) => r.id),
      scope.fromSeq,
    );
  });
  const work = new SessionWork(new SessionTables(store), derived, minutes * 60_000);
  while (store.transaction(() => work.step()));
  const refused = work.refusal();
  return { ...work.result, totals: sessionTotals(store), ...(refused ? { refused } : {}) };
}
