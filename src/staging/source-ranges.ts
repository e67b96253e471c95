/**
 * The range ledger of the source APIs (export-source --from mixpanel-api / amplitude-api): one
 * row per day or hour range of a source, from pending to done. A range's events are the reads
 * named after it (`<source>:<range>`, or that and `!<file>` for each file of an archive), so a
 * range is undone as a whole, whatever state its reads were left in: staged completely or not
 * at all.
 */
import { abandonRead } from './source-reads.js';
import type { StagingStore } from './staging-store.js';
import { mergeRecentUuids } from './uuid-keys.js';

export type RangeStatus = 'pending' | 'fetching' | 'done' | 'empty' | 'failed';

export interface RangeRow {
  id: number;
  source: string;
  start: string;
  end: string;
  status: RangeStatus;
  attempts: number;
  bytes: number;
  rowsRead: number;
  rowsStaged: number;
  rowsRejected: number;
  options: string;
  error: string | null;
  requestedAt: string | null;
  finishedAt: string | null;
}

export interface RangeBounds {
  start: string;
  end: string;
}

export interface RangeCounts {
  bytes: number;
  rowsRead: number;
  rowsStaged: number;
  rowsRejected: number;
}

const COLUMNS = `id, source, range_start AS start, range_end AS end, status, attempts, bytes, rows_read AS rowsRead,
  rows_staged AS rowsStaged, rows_rejected AS rowsRejected, options, error, requested_at AS requestedAt, finished_at AS finishedAt`;

/** The name a range's reads carry: `mixpanel-api:123:2024-03-05`, `amplitude-api:ab12:20240305T00-20240305T23`. */
export function rangeName(source: string, range: RangeBounds): string {
  return range.start === range.end ? `${source}:${range.start}` : `${source}:${range.start}-${range.end}`;
}

/** Adds ranges not in the ledger yet as pending; returns how many were new. */
export function addPendingRanges(store: StagingStore, source: string, ranges: readonly RangeBounds[], nowIso: string, origin: 'plan' | 'split' = 'plan'): number {
  const insert = store.db.prepare("INSERT INTO source_ranges (source, range_start, range_end, status, origin, created_at) VALUES (?, ?, ?, 'pending', ?, ?) ON CONFLICT DO NOTHING");
  return store.transaction(() => ranges.reduce((added, r) => added + insert.run(source, r.start, r.end, origin, nowIso).changes, 0));
}

/** Every range of `source`, in order. */
export function rangesOf(store: StagingStore, source: string): RangeRow[] {
  return store.db.prepare(`SELECT ${COLUMNS} FROM source_ranges WHERE source = ? ORDER BY range_start, range_end`).all(source) as RangeRow[];
}

/** Every range of every source, by source then start (for status). */
export function allRanges(store: StagingStore): RangeRow[] {
  return store.db.prepare(`SELECT ${COLUMNS} FROM source_ranges ORDER BY source, range_start, range_end`).all() as RangeRow[];
}

/** Removes everything staged from a range, whatever state its reads are in. */
export function undoRangeReads(store: StagingStore, source: string, range: RangeBounds, reason: string): void {
  const name = rangeName(source, range);
  const reads = store.db
    .prepare(
      `SELECT r.id FROM source_reads r JOIN sources s ON s.id = r.source_id
       WHERE r.status != 'failed' AND (s.path = @name OR substr(s.path, 1, length(@name) + 1) = @name || '!')`,
    )
    .all({ name }) as Array<{ id: number }>;
  for (const read of reads) abandonRead(store, read.id, reason);
}

/**
 * Undoes the ranges a process left being fetched (killed, or the machine stopped): their rows
 * are removed and they are pending again. Call while holding the staging lock, before anything
 * reads or sends staged events, so half a range is never sent.
 */
export function recoverInterruptedRanges(store: StagingStore): RangeRow[] {
  const rows = store.db.prepare(`SELECT ${COLUMNS} FROM source_ranges WHERE status = 'fetching'`).all() as RangeRow[];
  for (const row of rows) {
    store.transaction(() => {
      undoRangeReads(store, row.source, row, 'its range was interrupted before the end');
      store.db.prepare("UPDATE source_ranges SET status = 'pending', error = 'interrupted' WHERE id = ?").run(row.id);
    });
  }
  return rows;
}

/** A range's state now (undefined once it was split and removed). */
export function rangeStatus(store: StagingStore, id: number): RangeStatus | undefined {
  return (store.db.prepare('SELECT status FROM source_ranges WHERE id = ?').get(id) as { status: RangeStatus } | undefined)?.status;
}

/** A range is being fetched: from now on, a crash leaves it to be undone. */
export function markFetching(store: StagingStore, id: number): void {
  store.db.prepare("UPDATE source_ranges SET status = 'fetching', error = NULL WHERE id = ?").run(id);
}

/** One more request for a range (every attempt counts, for the rate limit of the next run too). */
export function noteRequest(store: StagingStore, id: number, nowIso: string): void {
  store.db.prepare('UPDATE source_ranges SET attempts = attempts + 1, requested_at = ? WHERE id = ?').run(nowIso, id);
}

export function markDone(store: StagingStore, id: number, counts: RangeCounts, options: Record<string, unknown>, nowIso: string): void {
  mergeRecentUuids(store);
  store.db
    .prepare(
      `UPDATE source_ranges SET status = 'done', bytes = ?, rows_read = ?, rows_staged = ?, rows_rejected = ?, options = ?,
         error = NULL, finished_at = ? WHERE id = ?`,
    )
    .run(counts.bytes, counts.rowsRead, counts.rowsStaged, counts.rowsRejected, JSON.stringify(options), nowIso, id);
}

export function markEmpty(store: StagingStore, id: number, options: Record<string, unknown>, nowIso: string): void {
  store.db.prepare("UPDATE source_ranges SET status = 'empty', bytes = 0, options = ?, error = NULL, finished_at = ? WHERE id = ?").run(JSON.stringify(options), nowIso, id);
}

/** Back to pending (interrupted, or stopped by another range's failure): nothing of it is staged. */
export function markPending(store: StagingStore, id: number, note: string | null): void {
  store.db.prepare("UPDATE source_ranges SET status = 'pending', error = ? WHERE id = ?").run(note, id);
}

export function markFailed(store: StagingStore, id: number, error: string, nowIso: string): void {
  store.db.prepare("UPDATE source_ranges SET status = 'failed', error = ?, finished_at = ? WHERE id = ?").run(error, nowIso, id);
}

/** Replaces a range by smaller ones (an answer too large to give at once), all pending. */
export function splitRange(store: StagingStore, row: RangeRow, parts: readonly RangeBounds[], nowIso: string): void {
  store.transaction(() => {
    store.db.prepare('DELETE FROM source_ranges WHERE id = ?').run(row.id);
    addPendingRanges(store, row.source, parts, nowIso, 'split');
  });
}

/**
 * Replaces a range not fetched (pending or failed: nothing of it is staged) by consecutive
 * parts, each keeping its state, attempts and error: a window that starts or ends inside it
 * fetches the part it asks for, and the rest stays as it was for a later window.
 */
export function cutUnfetched(store: StagingStore, row: RangeRow, parts: readonly RangeBounds[]): void {
  store.transaction(() => {
    const copy = store.db.prepare(
      `INSERT INTO source_ranges (source, range_start, range_end, status, origin, attempts, options, error, created_at, requested_at, finished_at)
       SELECT source, ?, ?, status, origin, attempts, options, error, created_at, requested_at, finished_at FROM source_ranges WHERE id = ?`,
    );
    for (const part of parts) copy.run(part.start, part.end, row.id);
    store.db.prepare('DELETE FROM source_ranges WHERE id = ?').run(row.id);
  });
}

/** Removes the pending ranges of `source` cut from a window (not the halves of a split) that overlap `[start, end]`, to cut them again. */
export function dropPlanned(store: StagingStore, source: string, window: RangeBounds): void {
  store.db.prepare("DELETE FROM source_ranges WHERE source = ? AND status = 'pending' AND origin = 'plan' AND range_start <= ? AND range_end >= ?").run(source, window.end, window.start);
}

/** Empty ranges back to pending, with a note: when a source never gave data, "empty" may mean misconfigured. */
export function reopenEmpty(store: StagingStore, source: string, note: string): number {
  return store.db.prepare("UPDATE source_ranges SET status = 'pending', error = ?, finished_at = NULL WHERE source = ? AND status = 'empty'").run(note, source).changes;
}

/** When requests were last made for ranges of `source` since `sinceIso` (to seed the rate limit). */
export function requestTimes(store: StagingStore, source: string, sinceIso: string): string[] {
  const rows = store.db.prepare('SELECT requested_at AS at FROM source_ranges WHERE source = ? AND requested_at >= ? ORDER BY requested_at').all(source, sinceIso) as Array<{ at: string }>;
  return rows.map((r) => r.at);
}
