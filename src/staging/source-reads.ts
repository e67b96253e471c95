/**
 * A read is one pass of a command over one source file. Its rows are committed piece by piece,
 * each piece with the point the read got to (see ReadProgress), so a read that was interrupted
 * (Ctrl-C, kill -9, a power cut) stays 'reading' and is resumed from its last piece by the next
 * run over the same file. A read that fails on bad input is undone as a whole: nothing
 * half-staged from a file is ever kept.
 */
import { RefusedError } from '../errors.js';
import type { StagingStore } from './staging-store.js';
import { forgetSelectedFacts } from './row-facts-store.js';
import { selectReadRows, withdrawSelected } from './withdrawals.js';
import { mergeRecentUuids } from './uuid-keys.js';

/**
 * How the rows read were counted. Every row read is exactly one of: staged (new), already
 * staged (by an earlier read), duplicates (identical to an earlier row of this read), skipped
 * (mapped to null, left out by a filter, dropped by a transform) or rejected; `recent` counts
 * staged rows within the last 48 hours. A transform may make several events of one row: the
 * events beyond the first are `added`, and each is counted as one row would be, so
 * rowsRead + added = staged + alreadyStaged + duplicates + skipped + rejected.
 */
export interface ReadCounts {
  rowsRead: number;
  staged: number;
  alreadyStaged: number;
  duplicates: number;
  skipped: number;
  rejected: number;
  recent: number;
  added: number;
}

export const COUNT_KEYS = ['rowsRead', 'staged', 'alreadyStaged', 'duplicates', 'skipped', 'rejected', 'recent', 'added'] as const;

export function emptyCounts(): ReadCounts {
  return { rowsRead: 0, staged: 0, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0, added: 0 };
}

/** Counts as a read records them: `added` absent is 0; skipped rows by reason (see SkippedBy). */
export type RecordedCounts = Omit<ReadCounts, 'added'> & { added?: number; skippedByReason?: SkippedBy };

/**
 * Skipped rows by reason: 'map' (mapped to null), the filter flag that left them out, or
 * 'transform <file name>'. Adds up to `skipped`, but for reads from before reasons were kept.
 */
export type SkippedBy = Record<string, number>;

/** Adds counts by reason (rejected or skipped) into `into`. */
export function addByReason(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [reason, n] of Object.entries(from)) into[reason] = (into[reason] ?? 0) + n;
}

function skippedByJson(counts: RecordedCounts): string {
  return JSON.stringify(counts.skippedByReason ?? {});
}

/** Where a read got to: the end of its last written piece. */
export interface ReadProgress {
  /** Decoded text staged, in UTF-16 units from the start of the file. */
  chars: number;
  /** The line the rest starts on (1-based). */
  line: number;
  /** `sha256:<hex>` of that text (UTF-8), to check that a file resumed is the same up to there. */
  fingerprint: string;
  /** The bytes of UTF-8 that text was decoded from (after a byte-order mark); null when not counted. */
  bytes?: number | null;
  /** The ETag of the bucket object the read began on; null for files. */
  etag?: string | null;
}

/**
 * The point recorded with each written piece. `chars` and `fingerprint` are null for a read
 * that cannot be resumed (a stream, which cannot be read again; a file holding one JSON array):
 * its line is kept for messages only.
 */
export interface PieceProgress {
  chars: number | null;
  line: number;
  fingerprint: string | null;
  /** The UTF-8 bytes read up to there (see ReadProgress.bytes), when counted. */
  bytes?: number | null;
}

export interface BeginReadOptions {
  path: string;
  format: string;
  command: string;
  sizeBytes: number;
  /** Options that shape the staged content (see content-options.ts), compared on the next read. */
  options: Record<string, unknown>;
  /** False for a read that records no point to resume at (see PieceProgress). Default true. */
  resumable?: boolean;
  /** A bucket object's ETag as listed: a ranged resume of the read asks for that version only. */
  etag?: string;
}

export interface ReadRecord {
  id: number;
  command: string;
  status: 'reading' | 'done' | 'failed';
  options: Record<string, unknown>;
  fingerprint: string | null;
  startedAt: string;
  /** Null for a read that began before reads recorded their progress (not resumable). */
  progress: ReadProgress | null;
  /** The CSV header, once the first piece was written. */
  header: string | null;
  supersededBy: number | null;
  counts: ReadCounts;
  skippedBy: SkippedBy;
}

const COUNT_COLUMNS = `rows_read AS rowsRead, rows_staged AS staged, rows_already_staged AS alreadyStaged, rows_duplicate AS duplicates,
  rows_skipped AS skipped, rows_rejected AS rejected, rows_recent AS recent, rows_added AS added, skipped_by AS skippedBy`;

type ReadRow = Omit<ReadRecord, 'options' | 'progress' | 'counts' | 'skippedBy'> &
  ReadCounts & { options: string; chars: number | null; line: number | null; progressFingerprint: string | null; bytes: number | null; etag: string | null; skippedBy: string };

function toRecord(row: ReadRow): ReadRecord {
  const { options, chars, line, progressFingerprint, bytes, etag, rowsRead, staged, alreadyStaged, duplicates, skipped, rejected, recent, added, skippedBy, ...rest } = row;
  return {
    ...rest,
    options: JSON.parse(options) as Record<string, unknown>,
    progress: chars === null || line === null || progressFingerprint === null ? null : { chars, line, fingerprint: progressFingerprint, bytes, etag },
    counts: { rowsRead, staged, alreadyStaged, duplicates, skipped, rejected, recent, added },
    skippedBy: JSON.parse(skippedBy) as SkippedBy,
  };
}

/** The key a read's format (`--from`, as registered: `csv`, `users-csv`) is recorded under in its options. */
export const RECORDED_FORMAT_KEY = 'from';

/** The sha256 fingerprint of no text: where every read starts. */
export const EMPTY_TEXT_FINGERPRINT = 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export function beginRead(store: StagingStore, read: BeginReadOptions): number {
  return store.transaction(() => {
    store.db.prepare('INSERT INTO sources (path, format) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET format = excluded.format').run(read.path, read.format);
    const source = store.db.prepare('SELECT id FROM sources WHERE path = ?').get(read.path) as { id: number };
    const result = store.db
      .prepare(
        `INSERT INTO source_reads (source_id, command, status, size_bytes, options, started_at, progress_chars, progress_line, progress_fingerprint, progress_bytes, source_etag)
         VALUES (?, ?, 'reading', ?, ?, ?, ?, 1, ?, ?, ?)`,
      )
      .run(
        source.id,
        read.command,
        read.sizeBytes,
        JSON.stringify(read.options),
        new Date().toISOString(),
        read.resumable === false ? null : 0,
        read.resumable === false ? null : EMPTY_TEXT_FINGERPRINT,
        read.resumable === false ? null : 0,
        read.etag ?? null,
      );
    return Number(result.lastInsertRowid);
  });
}

/** The latest read of `path` that was not undone: the one a new read compares its options with or resumes. */
export function latestRead(store: StagingStore, path: string): ReadRecord | undefined {
  const row = store.db
    .prepare(
      `SELECT r.id, r.command, r.status, r.options, r.fingerprint, r.started_at AS startedAt, r.progress_chars AS chars,
              r.progress_line AS line, r.progress_fingerprint AS progressFingerprint, r.progress_bytes AS bytes, r.source_etag AS etag, r.header, r.superseded_by AS supersededBy, ${COUNT_COLUMNS},
              s.format AS sourceFormat
       FROM source_reads r JOIN sources s ON s.id = r.source_id
       WHERE s.path = ? AND r.status <> 'failed' ORDER BY r.id DESC LIMIT 1`,
    )
    .get(path) as (ReadRow & { sourceFormat: string }) | undefined;
  if (row === undefined) return undefined;
  const { sourceFormat, ...read } = row;
  const record = toRecord(read);
  // A read by a migrate that did not record its format: the source's, as its latest read left it.
  if (!Object.hasOwn(record.options, RECORDED_FORMAT_KEY)) record.options[RECORDED_FORMAT_KEY] = sourceFormat;
  return record;
}

/**
 * The earlier reads of `path` (not undone, not `readId`) and how many of their rows are still
 * staged, or undefined when that is not known (a read from before progress was recorded).
 */
export function earlierReads(store: StagingStore, path: string, readId: number): { ids: number[]; liveRows: number | undefined } {
  const rows = store.db
    .prepare(
      `SELECT r.id, r.rows_staged AS staged, r.progress_chars AS chars, r.status,
              (SELECT count(*) FROM withdrawn_events w WHERE w.read_id = r.id) AS withdrawn
       FROM source_reads r JOIN sources s ON s.id = r.source_id WHERE s.path = ? AND r.status <> 'failed' AND r.id <> ?`,
    )
    .all(path, readId) as Array<{ id: number; staged: number; chars: number | null; status: string; withdrawn: number }>;
  const known = rows.every((r) => r.status === 'done' || r.chars !== null);
  return { ids: rows.map((r) => r.id), liveRows: known ? rows.reduce((n, r) => n + r.staged - r.withdrawn, 0) : undefined };
}

/** Rows of earlier reads the read `readId` met again. */
export function seenCount(store: StagingStore, readId: number): number {
  return (store.db.prepare('SELECT count(*) AS n FROM read_seen WHERE read_id = ?').get(readId) as { n: number }).n;
}

/**
 * Records the point a read got to and its counts so far. Call in the transaction that wrote
 * the piece: the rows and the point they reach are committed together.
 */
export function recordProgress(store: StagingStore, readId: number, progress: PieceProgress, counts: RecordedCounts, header: string | undefined): void {
  store.db
    .prepare(
      `UPDATE source_reads SET progress_chars = ?, progress_line = ?, progress_fingerprint = ?, progress_bytes = ?, header = coalesce(header, ?),
         rows_read = ?, rows_staged = ?, rows_already_staged = ?, rows_duplicate = ?, rows_skipped = ?, rows_rejected = ?, rows_recent = ?,
         rows_added = ?, skipped_by = ?
       WHERE id = ?`,
    )
    .run(progress.chars, progress.line, progress.fingerprint, progress.bytes ?? null, header ?? null, ...countColumns(counts), readId);
}

/** The count columns of source_reads, in the order the statements above name them. */
function countColumns(counts: RecordedCounts): Array<number | string | null> {
  return [counts.rowsRead, counts.staged, counts.alreadyStaged, counts.duplicates, counts.skipped, counts.rejected, counts.recent, counts.added ?? 0, skippedByJson(counts)];
}

/** Rejects of a read by reason, and its first ones by line: a resumed read's summary starts from them. */
export function readRejects(store: StagingStore, readId: number, first: number): { byReason: Record<string, number>; first: Array<{ line: number; field: string; reason: string; message: string }> } {
  const reasons = store.db.prepare('SELECT reason, count(*) AS n FROM rejects WHERE read_id = ? GROUP BY reason').all(readId) as Array<{ reason: string; n: number }>;
  const rows = store.db.prepare('SELECT line, field, reason, message FROM rejects WHERE read_id = ? ORDER BY line LIMIT ?').all(readId, first) as Array<{
    line: number;
    field: string;
    reason: string;
    message: string;
  }>;
  return { byReason: Object.fromEntries(reasons.map((r) => [r.reason, r.n])), first: rows };
}

/** Marks a read complete; older reads' rejects of the same file are superseded by this one's. */
export function finishRead(store: StagingStore, readId: number, counts: RecordedCounts, fingerprint: string | undefined, identity?: string): void {
  store.transaction(() => {
    store.db
      .prepare(
        `UPDATE source_reads SET status = 'done', finished_at = ?, fingerprint = ?, rows_read = ?, rows_staged = ?,
           rows_already_staged = ?, rows_duplicate = ?, rows_skipped = ?, rows_rejected = ?, rows_recent = ?, rows_added = ?, skipped_by = ?, source_identity = ? WHERE id = ?`,
      )
      .run(new Date().toISOString(), fingerprint ?? null, ...countColumns(counts), identity ?? null, readId);
    store.db
      .prepare(
        `DELETE FROM rejects WHERE read_id IN (
           SELECT id FROM source_reads WHERE source_id = (SELECT source_id FROM source_reads WHERE id = ?) AND id < ?)`,
      )
      .run(readId, readId);
    store.db.prepare('DELETE FROM read_seen WHERE read_id = ?').run(readId);
    mergeRecentUuids(store);
  });
}

/** Gives up a partial read for a later one: its rows stay, as rows of an earlier read. */
export function supersedeRead(store: StagingStore, readId: number, byReadId: number): void {
  store.db.prepare('UPDATE source_reads SET superseded_by = ?, finished_at = ? WHERE id = ?').run(byReadId, new Date().toISOString(), readId);
}

/**
 * Removes everything a read staged and marks it failed. A row of it that an import already
 * sent somewhere (possible once a read is resumed across runs) is withdrawn instead, so its
 * delivery record is kept with it.
 */
export function abandonRead(store: StagingStore, readId: number, error: string): void {
  store.transaction(() => {
    if (selectReadRows(store, readId, { settledOnly: true }) > 0) withdrawSelected(store, readId, 'undone');
    // The rest of its rows go without a trace: their rule facts go with them.
    if (selectReadRows(store, readId) > 0) forgetSelectedFacts(store);
    const removed = store.db.prepare('DELETE FROM events WHERE read_id = ?').run(readId).changes;
    store.db.prepare('DELETE FROM rejects WHERE read_id = ?').run(readId);
    store.db.prepare('DELETE FROM read_seen WHERE read_id = ?').run(readId);
    store.db.prepare("UPDATE source_reads SET status = 'failed', finished_at = ?, error = ? WHERE id = ?").run(new Date().toISOString(), error, readId);
    if (removed > 0) recountEventNames(store);
  });
}

function recountEventNames(store: StagingStore): void {
  store.db.exec('DELETE FROM event_names; INSERT INTO event_names (kind, name, count) SELECT kind, event, count(*) FROM events GROUP BY kind, event;');
}

export interface PartialRead {
  path: string;
  command: string;
  startedAt: string;
  /** The line it is staged up to (the next line to read), when known. */
  line: number | null;
  /** False for a read that recorded no point to resume at (a stream, a JSON array): staged again, it starts over. */
  resumable: boolean;
}

/** Reads left partial (interrupted, not given up): resumed by the next run over their file. */
export function partialReads(store: StagingStore): PartialRead[] {
  return store.db
    .prepare(
      `SELECT s.path, r.command, r.started_at AS startedAt, r.progress_line AS line, r.progress_chars IS NOT NULL AS resumable
       FROM source_reads r JOIN sources s ON s.id = r.source_id
       WHERE r.status = 'reading' AND r.superseded_by IS NULL ORDER BY r.id`,
    )
    .all()
    .map((row) => ({ ...(row as PartialRead), resumable: (row as { resumable: number }).resumable === 1 }));
}

/**
 * Refuses to go on (an import) while a file is only partly staged: sending part of a file now
 * and the rest later is how a migration ends up with half a file when the other half never
 * comes. The message says how to finish it.
 */
export function refusePartialReads(store: StagingStore): void {
  const partial = partialReads(store);
  if (partial.length === 0) return;
  const lines = partial.map((r) => `  ${r.path}: ${r.command} interrupted at line ${r.line ?? 1} (started ${r.startedAt})${r.resumable ? '' : ', not resumable: staged again, it starts over'}`);
  throw new RefusedError(`${partial.length === 1 ? 'a source file is' : 'source files are'} only partly staged:\n${lines.join('\n')}`, [
    'Finish staging first: run the same staging command again on each file; it resumes where it stopped.',
  ]);
}
