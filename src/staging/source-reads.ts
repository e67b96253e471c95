/**
 * A read is one run of a command over one source file. Its rows are committed in batches and
 * stay tied to it, so a read that fails or is killed part-way can be undone as a whole:
 * nothing half-staged from a file is ever sent.
 */
import type { StagingStore } from './staging-store.js';

export interface ReadCounts {
  rowsRead: number;
  staged: number;
  alreadyStaged: number;
  duplicates: number;
  skipped: number;
  rejected: number;
  recent: number;
}

export interface BeginReadOptions {
  path: string;
  format: string;
  command: string;
  sizeBytes: number;
  /** Options that shape the staged content (map file, time zone), to explain later conflicts. */
  options: Record<string, unknown>;
}

export function beginRead(store: StagingStore, read: BeginReadOptions): number {
  return store.transaction(() => {
    store.db.prepare('INSERT INTO sources (path, format) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET format = excluded.format').run(read.path, read.format);
    const source = store.db.prepare('SELECT id FROM sources WHERE path = ?').get(read.path) as { id: number };
    const result = store.db
      .prepare("INSERT INTO source_reads (source_id, command, status, size_bytes, options, started_at) VALUES (?, ?, 'reading', ?, ?, ?)")
      .run(source.id, read.command, read.sizeBytes, JSON.stringify(read.options), new Date().toISOString());
    return Number(result.lastInsertRowid);
  });
}

/** The options recorded by the latest complete read of `path`, if it was read before. */
export function previousReadOptions(store: StagingStore, path: string): Record<string, unknown> | undefined {
  const row = store.db
    .prepare(
      `SELECT r.options FROM source_reads r JOIN sources s ON s.id = r.source_id
       WHERE s.path = ? AND r.status = 'done' ORDER BY r.id DESC LIMIT 1`,
    )
    .get(path) as { options: string } | undefined;
  return row === undefined ? undefined : (JSON.parse(row.options) as Record<string, unknown>);
}

/** Marks a read complete; older reads' rejects of the same file are superseded by this one's. */
export function finishRead(store: StagingStore, readId: number, counts: ReadCounts, fingerprint: string | undefined): void {
  store.transaction(() => {
    store.db
      .prepare(
        `UPDATE source_reads SET status = 'done', finished_at = ?, fingerprint = ?, rows_read = ?, rows_staged = ?,
           rows_already_staged = ?, rows_duplicate = ?, rows_skipped = ?, rows_rejected = ?, rows_recent = ? WHERE id = ?`,
      )
      .run(new Date().toISOString(), fingerprint ?? null, counts.rowsRead, counts.staged, counts.alreadyStaged, counts.duplicates, counts.skipped, counts.rejected, counts.recent, readId);
    store.db
      .prepare(
        `DELETE FROM rejects WHERE read_id IN (
           SELECT id FROM source_reads WHERE source_id = (SELECT source_id FROM source_reads WHERE id = ?) AND id < ?)`,
      )
      .run(readId, readId);
  });
}

/** Removes everything a read staged and marks it failed. */
export function abandonRead(store: StagingStore, readId: number, error: string): void {
  store.transaction(() => {
    const removed = store.db.prepare('DELETE FROM events WHERE read_id = ?').run(readId).changes;
    store.db.prepare('DELETE FROM rejects WHERE read_id = ?').run(readId);
    store.db.prepare("UPDATE source_reads SET status = 'failed', finished_at = ?, error = ? WHERE id = ?").run(new Date().toISOString(), error, readId);
    if (removed > 0) recountEventNames(store);
  });
}

function recountEventNames(store: StagingStore): void {
  store.db.exec('DELETE FROM event_names; INSERT INTO event_names (kind, name, count) SELECT kind, event, count(*) FROM events GROUP BY kind, event;');
}

export interface InterruptedRead {
  path: string;
  command: string;
  startedAt: string;
}

/**
 * Undoes reads left 'reading' by a process that died. Call only while holding the staging
 * lock: then no live process can own them.
 */
export function recoverInterruptedReads(store: StagingStore): InterruptedRead[] {
  const rows = store.db
    .prepare(
      `SELECT r.id, s.path, r.command, r.started_at AS startedAt FROM source_reads r JOIN sources s ON s.id = r.source_id
       WHERE r.status = 'reading'`,
    )
    .all() as Array<InterruptedRead & { id: number }>;
  for (const row of rows) abandonRead(store, row.id, 'interrupted before the end of the file');
  return rows.map(({ path, command, startedAt }) => ({ path, command, startedAt }));
}
