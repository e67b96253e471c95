/**
 * --sessionize's tables: the events that get a computed session id (staged by reads that asked
 * for sessions, without a UUIDv7 `$session_id` of their own), by distinct_id and time, with the
 * start of the session each has now; and the distinct_ids to work out again. Indexed, so a pass
 * walks one person's events in time order without sorting the whole file in memory.
 */
import type { Statement } from '../sqlite/database.js';
import type { StagingStore } from './staging-store.js';
import { propertiesSql } from './property-blocks.js';

export interface SessionRow {
  timestampMs: number;
  uuid: Buffer;
  sessionStartMs: number | null;
}

/** Reads whose events get sessions: those that recorded --sessionize, with its minutes. */
export function sessionizeReads(store: StagingStore): Array<{ id: number; minutes: number }> {
  return store.db
    .prepare(
      `SELECT id, json_extract(options, '$.sessionize') AS minutes FROM source_reads
       WHERE status <> 'failed' AND json_extract(options, '$.sessionize') IS NOT NULL ORDER BY id`,
    )
    .all() as Array<{ id: number; minutes: number }>;
}

/** Adds the events staged from `fromSeq` on by these reads that have no session id yet; new ones mark their distinct_id (trigger). */
export function collectSessionEvents(store: StagingStore, readIds: readonly number[], fromSeq: number): number {
  if (readIds.length === 0) return 0;
  return store.db
    .prepare(
      `INSERT OR IGNORE INTO session_events (distinct_id, timestamp_ms, uuid, session_start_ms)
       SELECT e.distinct_id, e.timestamp_ms, e.uuid, NULL FROM events e
       WHERE e.seq >= ? AND e.kind = 0 AND e.read_id IN (SELECT value FROM json_each(?)) AND ${propertiesSql('e.properties')} ->> '$."$session_id"' IS NULL`,
    )
    .run(fromSeq, JSON.stringify(readIds)).changes;
}

/** Drops the rows whose event is no longer staged, and marks their distinct_ids. */
export function dropOrphanSessionEvents(store: StagingStore): void {
  store.db.exec(`
    INSERT OR IGNORE INTO session_dirty (distinct_id)
      SELECT DISTINCT distinct_id FROM session_events s WHERE NOT EXISTS (SELECT 1 FROM event_uuids e WHERE e.uuid = s.uuid);
    DELETE FROM session_events WHERE NOT EXISTS (SELECT 1 FROM event_uuids e WHERE e.uuid = session_events.uuid);
  `);
}

/** The statements a sessions pass uses, prepared once. */
export class SessionTables {
  private readonly nextDirty: Statement;
  private readonly page: Statement;
  private readonly findEvent: Statement;
  private readonly setEvent: Statement;
  private readonly setStart: Statement;
  private readonly clean: Statement;

  constructor(store: StagingStore) {
    const db = store.db;
    this.nextDirty = db.prepare('SELECT distinct_id AS id FROM session_dirty WHERE distinct_id > ? ORDER BY distinct_id LIMIT ?');
    this.page = db.prepare(
      `SELECT timestamp_ms AS timestampMs, uuid, session_start_ms AS sessionStartMs FROM session_events
       WHERE distinct_id = ? AND (timestamp_ms, uuid) > (?, ?) ORDER BY timestamp_ms, uuid LIMIT ?`,
    );
    this.findEvent = db.prepare('SELECT seq FROM event_uuids WHERE uuid = ?');
    this.setEvent = db.prepare(`UPDATE events SET properties = jsonb_set(${propertiesSql('properties')}, '$."$session_id"', ?) WHERE seq = ?`);
    this.setStart = db.prepare('UPDATE session_events SET session_start_ms = ? WHERE distinct_id = ? AND timestamp_ms = ? AND uuid = ?');
    this.clean = db.prepare('DELETE FROM session_dirty WHERE distinct_id = ?');
  }

  dirty(after: string, limit: number): string[] {
    return (this.nextDirty.all(after, limit) as Array<{ id: string }>).map((r) => r.id);
  }

  /** The next rows of a distinct_id after (timestampMs, uuid), in time order. */
  rowsAfter(distinctId: string, timestampMs: number, uuid: Uint8Array, limit: number): SessionRow[] {
    return this.page.all(distinctId, timestampMs, uuid, limit) as SessionRow[];
  }

  seqOf(uuid: Uint8Array): number | undefined {
    return (this.findEvent.get(uuid) as { seq: number } | undefined)?.seq;
  }

  /** Gives the staged event its session id, and records the session's start. */
  setSession(distinctId: string, row: SessionRow, seq: number, startMs: number, sessionId: string): void {
    this.setEvent.run(sessionId, seq);
    this.setStart.run(startMs, distinctId, row.timestampMs, row.uuid);
  }

  done(distinctId: string): void {
    this.clean.run(distinctId);
  }
}

export function sessionTotals(store: StagingStore): { events: number; sessions: number } {
  return store.db
    .prepare(
      `SELECT count(*) AS events,
              (SELECT count(*) FROM (SELECT DISTINCT distinct_id, session_start_ms FROM session_events WHERE timestamp_ms = session_start_ms)) AS sessions
       FROM session_events`,
    )
    .get() as { events: number; sessions: number };
}
