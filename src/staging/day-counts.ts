/**
 * What `verify` reads from the staging file: per UTC day (and event name) the events staged,
 * delivered to a project and dead-lettered there; the events of a time window a project
 * received, with their uuids; the dead letters by reason. Read-only.
 */
import type { StagingStore } from './staging-store.js';

const DAY_MS = 86_400_000;
/** The UTC day number of e.timestamp_ms, rounding down also before 1970 (SQLite's `/` truncates). */
const DAY_SQL = `((e.timestamp_ms - (((e.timestamp_ms % ${DAY_MS}) + ${DAY_MS}) % ${DAY_MS})) / ${DAY_MS})`;
/** Every kind, so the send-order index (kind, timestamp_ms) serves the time range. */
const ALL_KINDS = 'e.kind IN (0, 1, 2)';

export interface TimeRange {
  /** Inclusive, ms since the epoch. */
  fromMs: number;
  /** Exclusive. */
  toMs: number;
}

export interface DayCount {
  /** Days since 1970-01-01, UTC. */
  day: number;
  /** With byEvent only. */
  event?: string;
  staged: number;
  delivered: number;
  deadLetters: number;
}

function settledSql(projectId: number | undefined, table: 'deliveries' | 'dead_letters', present: boolean): string {
  // A project with nothing in the table: no look-up per row.
  if (projectId === undefined || !present) return '0';
  return `sum(EXISTS (SELECT 1 FROM ${table} s WHERE s.project_id = @projectId AND s.seq = e.seq))`;
}

function hasRows(store: StagingStore, table: 'deliveries' | 'dead_letters', projectId: number | undefined): boolean {
  if (projectId === undefined) return false;
  return store.db.prepare(`SELECT EXISTS (SELECT 1 FROM ${table} WHERE project_id = ?)`).pluck().get(projectId) === 1;
}

/**
 * Staged, delivered and dead-lettered events per UTC day (and event name), ordered by day. Per
 * day alone it reads only the send-order index (it holds kind, timestamp and seq); by event it
 * reads the rows too.
 */
export function countByDay(store: StagingStore, projectId: number | undefined, range: TimeRange, byEvent: boolean): DayCount[] {
  const delivered = settledSql(projectId, 'deliveries', hasRows(store, 'deliveries', projectId));
  const dead = settledSql(projectId, 'dead_letters', hasRows(store, 'dead_letters', projectId));
  const keys = byEvent ? 'day, e.event' : 'day';
  const rows = store.db
    .prepare(
      `SELECT ${DAY_SQL} AS day, ${byEvent ? 'e.event AS event, ' : ''}count(*) AS staged, ${delivered} AS delivered, ${dead} AS deadLetters
       FROM events e WHERE ${ALL_KINDS} AND e.timestamp_ms >= @fromMs AND e.timestamp_ms < @toMs
       GROUP BY ${keys} ORDER BY ${keys}`,
    )
    .all({ projectId: projectId ?? null, fromMs: range.fromMs, toMs: range.toMs }) as DayCount[];
  return rows;
}

/** First and last staged instant, all kinds (each one seek in the send-order index per kind). */
export function stagedTimeRange(store: StagingStore): { firstMs: number; lastMs: number } | undefined {
  const row = store.db
    .prepare(
      `SELECT min(first) AS firstMs, max(last) AS lastMs FROM (
         SELECT (SELECT min(timestamp_ms) FROM events WHERE kind = k.kind) AS first, (SELECT max(timestamp_ms) FROM events WHERE kind = k.kind) AS last
         FROM (SELECT 0 AS kind UNION ALL SELECT 1 UNION ALL SELECT 2) k)`,
    )
    .get() as { firstMs: number | null; lastMs: number | null };
  return row.firstMs === null || row.lastMs === null ? undefined : { firstMs: row.firstMs, lastMs: row.lastMs };
}

/**
 * Visits the events of a time window a project received (all kinds, withdrawn ones are no
 * longer in `events`): seq, uuid as 32 lower-case hex digits, UTC day, event name. Streamed row
 * by row (as arrays, no object per row), so memory stays flat.
 */
export function forEachDeliveredUuid(store: StagingStore, projectId: number, range: TimeRange, visit: (seq: number, uuidHex: string, day: number, event: string) => void): void {
  const rows = store.db
    .prepare(
      `SELECT e.seq, lower(hex(e.uuid)), ${DAY_SQL}, e.event FROM events e
       WHERE ${ALL_KINDS} AND e.timestamp_ms >= ? AND e.timestamp_ms < ?
         AND EXISTS (SELECT 1 FROM deliveries d WHERE d.project_id = ? AND d.seq = e.seq)`,
    )
    .raw(true)
    .iterate(range.fromMs, range.toMs, projectId) as IterableIterator<[number, string, number, string]>;
  for (const [seq, uuid, day, event] of rows) visit(seq, uuid, day, event);
}

export interface DeadLetterReason {
  status: number;
  message: string;
  count: number;
}

/** A project's dead letters grouped by the server's answer, most frequent first. */
export function deadLettersByReason(store: StagingStore, projectId: number | undefined, limit = 20): DeadLetterReason[] {
  if (projectId === undefined) return [];
  return store.db
    .prepare('SELECT status, message, count(*) AS count FROM dead_letters WHERE project_id = ? GROUP BY status, message ORDER BY count DESC, status LIMIT ?')
    .all(projectId, limit) as DeadLetterReason[];
}
