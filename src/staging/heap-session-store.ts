/**
 * The tables of Heap's sessions whose start the event rows do not carry (no `session_time`, or
 * one that is not a time; see passes/heap-sessions.ts): each Heap event row with a `session_id`
 * and no `$session_id`, by user, session and time; the start each session's rows were given;
 * and the sessions to work out again (a row added or taken out). Indexed by session, so a pass
 * reads one session's rows at a time and never the whole file.
 */
import type { Statement } from '../sqlite/database.js';
import { propertiesSql } from './property-blocks.js';
import type { StagingStore } from './staging-store.js';

export interface HeapSessionKey {
  user: string;
  session: string;
}

export interface HeapSessionRow {
  timestampMs: number;
  uuid: Buffer;
}

/**
 * Adds the Heap event rows staged from `fromSeq` on that name a session and have no session id;
 * each new one marks its session (trigger). A row's session is its `session_id` as text, every
 * digit kept, as the ids made while reading name it.
 *
 * A row's read is checked before its properties: reading them unpacks its property block, and
 * with the join to the reads SQLite looked at the properties of every event first (a staging file
 * of Amplitude events had each of its blocks unpacked at the end of every run, for nothing:
 * seconds, and tens of MB of caches). A file with no Heap read skips the statement.
 */
export function collectHeapSessionRows(store: StagingStore, fromSeq: number): number {
  const heapReads = `SELECT r.id FROM source_reads r JOIN sources s ON s.id = r.source_id WHERE s.format = 'heap'`;
  if (store.db.prepare(`SELECT EXISTS (${heapReads})`).pluck().get() !== 1) return 0;
  const properties = propertiesSql('e.properties');
  return store.db
    .prepare(
      `INSERT OR IGNORE INTO heap_session_rows (user, session, timestamp_ms, uuid)
       SELECT e.distinct_id, CAST(${properties} ->> '$.session_id' AS TEXT), e.timestamp_ms, e.uuid
       FROM events e
       WHERE e.seq >= ? AND e.kind = 0 AND e.read_id IN (${heapReads})
         AND ${properties} ->> '$.session_id' IS NOT NULL AND ${properties} ->> '$."$session_id"' IS NULL`,
    )
    .run(fromSeq).changes;
}

/** Drops the rows whose event is no longer staged, and marks their sessions. */
export function dropOrphanHeapSessionRows(store: StagingStore): void {
  store.db.exec(`
    INSERT OR IGNORE INTO heap_session_dirty (user, session)
      SELECT DISTINCT user, session FROM heap_session_rows h WHERE NOT EXISTS (SELECT 1 FROM event_uuids e WHERE e.uuid = h.uuid);
    DELETE FROM heap_session_rows WHERE NOT EXISTS (SELECT 1 FROM event_uuids e WHERE e.uuid = heap_session_rows.uuid);
  `);
}

/** The statements a Heap sessions pass uses, prepared once. */
export class HeapSessionTables {
  private readonly nextDirty: Statement;
  private readonly rowsOf: Statement;
  private readonly startOf: Statement;
  private readonly findEvent: Statement;
  private readonly setEvent: Statement;
  private readonly setStart: Statement;
  private readonly forget: Statement;
  private readonly clean: Statement;

  constructor(store: StagingStore) {
    const db = store.db;
    this.nextDirty = db.prepare('SELECT user, session FROM heap_session_dirty WHERE (user, session) > (?, ?) ORDER BY user, session LIMIT ?');
    this.rowsOf = db.prepare('SELECT timestamp_ms AS timestampMs, uuid FROM heap_session_rows WHERE user = ? AND session = ? ORDER BY timestamp_ms, uuid');
    this.startOf = db.prepare('SELECT start_ms FROM heap_sessions WHERE user = ? AND session = ?').pluck();
    this.findEvent = db.prepare(`SELECT seq, ${propertiesSql('properties')} ->> '$."$session_id"' AS sessionId FROM events WHERE seq = (SELECT seq FROM event_uuids WHERE uuid = ?)`);
    this.setEvent = db.prepare(`UPDATE events SET properties = jsonb_set(${propertiesSql('properties')}, '$."$session_id"', ?) WHERE seq = ?`);
    this.setStart = db.prepare('INSERT INTO heap_sessions (user, session, start_ms) VALUES (?, ?, ?) ON CONFLICT (user, session) DO UPDATE SET start_ms = excluded.start_ms');
    this.forget = db.prepare('DELETE FROM heap_sessions WHERE user = ? AND session = ?');
    this.clean = db.prepare('DELETE FROM heap_session_dirty WHERE user = ? AND session = ?');
  }

  /** The next sessions to work out after `after`, in key order. */
  dirty(after: HeapSessionKey, limit: number): HeapSessionKey[] {
    return this.nextDirty.all(after.user, after.session, limit) as HeapSessionKey[];
  }

  /** A session's rows in time order (a session's events are few). */
  rows(key: HeapSessionKey): HeapSessionRow[] {
    return this.rowsOf.all(key.user, key.session) as HeapSessionRow[];
  }

  /** The start the session's rows were given, if they were. */
  recordedStart(key: HeapSessionKey): number | undefined {
    return this.startOf.get(key.user, key.session) as number | undefined;
  }

  /** The staged row of `uuid`: its seq and the session id it carries. */
  event(uuid: Uint8Array): { seq: number; sessionId: string | null } | undefined {
    return this.findEvent.get(uuid) as { seq: number; sessionId: string | null } | undefined;
  }

  setSessionId(seq: number, sessionId: string): void {
    this.setEvent.run(sessionId, seq);
  }

  recordStart(key: HeapSessionKey, startMs: number): void {
    this.setStart.run(key.user, key.session, startMs);
  }

  /** A session with no rows left. */
  forgetSession(key: HeapSessionKey): void {
    this.forget.run(key.user, key.session);
  }

  done(key: HeapSessionKey): void {
    this.clean.run(key.user, key.session);
  }
}

export function heapSessionTotals(store: StagingStore): { events: number; sessions: number } {
  return store.db.prepare('SELECT (SELECT count(*) FROM heap_session_rows) AS events, (SELECT count(*) FROM heap_sessions) AS sessions').get() as {
    events: number;
    sessions: number;
  };
}
