/**
 * Withdrawing staged events: taking them out of the send set for good. A row gone from a file
 * that changed, a row replaced under --replace-changed, or a read undone after an import had
 * sent part of it. The event moves to `withdrawn_events` as it was, with the names of the
 * projects that had received it; its delivery and dead-letter records go with it and the
 * counters follow (event names, each project's delivered and dead letters), so "pending" stays
 * staged - delivered - dead letters everywhere, and a seq SQLite hands out again can never be
 * taken for delivered.
 */
import { uuidText } from '../events/stable-uuid.js';
import { forgetSelectedFacts } from './row-facts-store.js';
import type { StagingStore } from './staging-store.js';
import { propertiesTextSql } from './property-blocks.js';

export type WithdrawReason = 'gone' | 'replaced' | 'undone';

/** Rows about to be withdrawn that a project already received: PostHog keeps those. */
export interface DeliveredRows {
  count: number;
  /** The first of them, by file and line. */
  first: Array<{ path: string; line: number; uuid: string; projects: string[] }>;
  /** Per project, how many of them it received. */
  projects: Array<{ name: string; count: number }>;
}

const SHOWN_ROWS = 5;

function ensureSelection(store: StagingStore): void {
  store.db.exec('CREATE TEMP TABLE IF NOT EXISTS withdraw_seqs (seq INTEGER PRIMARY KEY); DELETE FROM withdraw_seqs;');
}

/** Selects, for the next withdrawal, the rows of `earlierReads` the read `readId` did not meet again. */
export function selectGoneRows(store: StagingStore, readId: number, earlierReads: readonly number[]): number {
  ensureSelection(store);
  return store.db
    .prepare(
      `INSERT INTO withdraw_seqs (seq) SELECT e.seq FROM events e
       WHERE e.read_id IN (SELECT value FROM json_each(?))
         AND NOT EXISTS (SELECT 1 FROM read_seen s WHERE s.read_id = ? AND s.seq = e.seq)`,
    )
    .run(JSON.stringify(earlierReads), readId).changes;
}

/** Selects, for the next withdrawal, the rows of one read (only those a project sent or refused, with `settledOnly`). */
export function selectReadRows(store: StagingStore, readId: number, options: { settledOnly?: boolean } = {}): number {
  ensureSelection(store);
  const settled = `AND EXISTS (SELECT 1 FROM projects p WHERE EXISTS (SELECT 1 FROM deliveries d WHERE d.project_id = p.id AND d.seq = e.seq)
                                                      OR EXISTS (SELECT 1 FROM dead_letters x WHERE x.project_id = p.id AND x.seq = e.seq))`;
  return store.db.prepare(`INSERT INTO withdraw_seqs (seq) SELECT e.seq FROM events e WHERE e.read_id = ? ${options.settledOnly ? settled : ''}`).run(readId).changes;
}

/** Selects one row. */
export function selectRow(store: StagingStore, seq: number): void {
  ensureSelection(store);
  store.db.prepare('INSERT INTO withdraw_seqs (seq) VALUES (?)').run(seq);
}

/** Withdraws the rows a query names (the seqs it answers, no parameters); returns how many. */
export function withdrawQueried(store: StagingStore, seqsSql: string, byReadId: number, reason: WithdrawReason): number {
  // Selected in one statement: selectRow starts a new selection each time, so a loop of it kept only the last row.
  ensureSelection(store);
  if (store.db.prepare(`INSERT OR IGNORE INTO withdraw_seqs (seq) ${seqsSql}`).run().changes === 0) return 0;
  return withdrawSelected(store, byReadId, reason);
}

/** Of the selected rows, those a project received. */
export function deliveredAmongSelected(store: StagingStore): DeliveredRows {
  const delivered = `SELECT w.seq, p.name FROM withdraw_seqs w JOIN projects p
                     WHERE EXISTS (SELECT 1 FROM deliveries d WHERE d.project_id = p.id AND d.seq = w.seq)`;
  const projects = store.db.prepare(`SELECT name, count(*) AS count FROM (${delivered}) GROUP BY name ORDER BY name`).all() as DeliveredRows['projects'];
  const count = (store.db.prepare(`SELECT count(DISTINCT seq) AS n FROM (${delivered})`).get() as { n: number }).n;
  const rows = store.db
    .prepare(
      `SELECT s.path, e.line, e.uuid, (SELECT json_group_array(name) FROM (${delivered}) x WHERE x.seq = e.seq) AS projects
       FROM events e JOIN source_reads r ON r.id = e.read_id JOIN sources s ON s.id = r.source_id
       WHERE e.seq IN (SELECT seq FROM (${delivered})) ORDER BY s.id, e.line LIMIT ?`,
    )
    .all(SHOWN_ROWS) as Array<{ path: string; line: number; uuid: Buffer; projects: string }>;
  const first = rows.map((r) => ({ path: r.path, line: r.line, uuid: uuidText(r.uuid), projects: JSON.parse(r.projects) as string[] }));
  return { count, first, projects };
}

/** Withdraws the selected rows in the name of read `byReadId`; returns how many. Call inside a transaction or alone. */
export function withdrawSelected(store: StagingStore, byReadId: number, reason: WithdrawReason): number {
  return store.transaction(() => {
    const db = store.db;
    const received = (table: string, project: string): string => `EXISTS (SELECT 1 FROM ${table} t WHERE t.project_id = ${project} AND t.seq = w.seq)`;
    const moved = db
      .prepare(
        `INSERT INTO withdrawn_events (seq, uuid, kind, event, distinct_id, timestamp_ms, properties, read_id, line, withdrawn_by, reason, delivered_to, withdrawn_at)
         SELECT e.seq, e.uuid, e.kind, e.event, e.distinct_id, e.timestamp_ms,
                ${propertiesTextSql('e.properties')}, e.read_id, e.line, ?, ?,
                (SELECT json_group_array(p.name) FROM projects p, withdraw_seqs w WHERE w.seq = e.seq AND ${received('deliveries', 'p.id')}), ?
         FROM events e JOIN withdraw_seqs w ON w.seq = e.seq`,
      )
      .run(byReadId, reason, new Date().toISOString()).changes;
    if (moved === 0) return 0;
    forgetSelectedFacts(store);
    db.exec(`
      UPDATE projects SET
        delivered = delivered - (SELECT count(*) FROM withdraw_seqs w WHERE ${received('deliveries', 'projects.id')}),
        dead_letters = dead_letters - (SELECT count(*) FROM withdraw_seqs w WHERE ${received('dead_letters', 'projects.id')});
      DELETE FROM deliveries WHERE (project_id, seq) IN (SELECT p.id, w.seq FROM projects p, withdraw_seqs w);
      DELETE FROM dead_letters WHERE (project_id, seq) IN (SELECT p.id, w.seq FROM projects p, withdraw_seqs w);
      UPDATE event_names SET count = count - (
        SELECT count(*) FROM events e JOIN withdraw_seqs w ON w.seq = e.seq WHERE e.kind = event_names.kind AND e.event = event_names.name)
        WHERE (kind, name) IN (SELECT e.kind, e.event FROM events e JOIN withdraw_seqs w ON w.seq = e.seq);
      DELETE FROM event_names WHERE count <= 0;
      DELETE FROM events WHERE seq IN (SELECT seq FROM withdraw_seqs);
      DELETE FROM withdraw_seqs;
    `);
    db.prepare('UPDATE source_reads SET rows_withdrawn = rows_withdrawn + ? WHERE id = ?').run(moved, byReadId);
    return moved;
  });
}

export interface WithdrawnByRead {
  reason: WithdrawReason;
  count: number;
  /** Of them, rows a project had received, per project. */
  delivered: Array<{ project: string; count: number }>;
}

/** What read `readId` withdrew, by reason. */
export function withdrawnByRead(store: StagingStore, readId: number): WithdrawnByRead[] {
  const rows = store.db.prepare('SELECT reason, count(*) AS count FROM withdrawn_events WHERE withdrawn_by = ? GROUP BY reason ORDER BY reason').all(readId) as Array<{
    reason: WithdrawReason;
    count: number;
  }>;
  const delivered = store.db
    .prepare(
      `SELECT w.reason, j.value AS project, count(*) AS count FROM withdrawn_events w, json_each(w.delivered_to) j
       WHERE w.withdrawn_by = ? GROUP BY w.reason, j.value ORDER BY j.value`,
    )
    .all(readId) as Array<{ reason: WithdrawReason; project: string; count: number }>;
  return rows.map((r) => ({ ...r, delivered: delivered.filter((d) => d.reason === r.reason).map(({ project, count }) => ({ project, count })) }));
}
