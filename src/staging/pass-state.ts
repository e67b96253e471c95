/**
 * Where the passes after staging got to (identity links, group updates, sessions), so each run
 * looks only at what changed since: rows staged above the last seq looked at, and, when rows
 * were taken out since (withdrawn, or a read undone), the facts drawn from them cleaned up. A
 * staging run marks the passes pending before it stages anything and clears the mark when they
 * are done, in the transaction that saves where they got to: a run that dies in between leaves
 * them pending, the next staging run finishes them, and import refuses to start meanwhile.
 */
import { RefusedError } from '../errors.js';
import type { StagingStore } from './staging-store.js';

/** The options the passes ran with, kept for the runs that do not give them (identify-users...). */
export interface PassSettings {
  maxUsersPerDevice?: number;
  /** --sessionize minutes of the staging file's reads, null when none asked for sessions. */
  sessionizeMinutes?: number | null;
  /** Which sources' events identity links are drawn from (changes mean: draw them again). */
  linkSources?: string;
  /** The group types updates are staged for (PostHog keeps five). */
  groupTypes?: string[];
}

export interface PassMarks {
  /** Rows up to this seq were looked at. */
  seq: number;
  /** The last withdrawn_events id then. */
  withdrawnId: number;
  /** Reads undone (failed) then. */
  failedReads: number;
}

export interface PassState extends PassMarks {
  settings: PassSettings;
  /** What the passes found, for status (JSON of each pass's totals). */
  summary: Record<string, unknown>;
}

/** What the next passes must look at. */
export interface ScanScope {
  /** Rows from this seq on may be new. */
  fromSeq: number;
  /** Rows staged from files were taken out since: facts drawn from them are cleaned up. */
  rowsRemoved: boolean;
  /** The passes never ran on this file: whatever they keep is empty. */
  firstRun: boolean;
  /** Rows withdrawn since are those of withdrawn_events above this id. */
  withdrawnAfter: number;
  /** Reads were undone (their rows removed) since. */
  readsUndone: boolean;
}

const NAME = 'passes';
const PENDING_KEY = 'passes_pending';

export function loadPassState(store: StagingStore): PassState | undefined {
  const row = store.db.prepare('SELECT seq, withdrawn_id AS withdrawnId, failed_reads AS failedReads, settings, summary FROM pass_state WHERE name = ?').get(NAME) as
    | (PassMarks & { settings: string; summary: string })
    | undefined;
  if (row === undefined) return undefined;
  return { ...row, settings: JSON.parse(row.settings) as PassSettings, summary: JSON.parse(row.summary) as Record<string, unknown> };
}

export function currentMarks(store: StagingStore): PassMarks {
  const row = store.db
    .prepare(
      `SELECT (SELECT coalesce(max(seq), 0) FROM events) AS seq, (SELECT coalesce(max(id), 0) FROM withdrawn_events) AS withdrawnId,
              (SELECT count(*) FROM source_reads WHERE status = 'failed') AS failedReads`,
    )
    .get() as PassMarks;
  return row;
}

/**
 * SQLite gives a new row the largest seq + 1, so a row staged after rows were deleted may reuse
 * a seq at or below the last one looked at: the scan starts at the lowest seq withdrawn since,
 * and from the start after a read was undone (its rows go without a trace).
 */
export function scanScope(store: StagingStore, state: PassState | undefined): ScanScope {
  const now = currentMarks(store);
  if (state === undefined) return { fromSeq: 0, rowsRemoved: true, firstRun: true, withdrawnAfter: 0, readsUndone: now.failedReads > 0 };
  const since = { firstRun: false, withdrawnAfter: state.withdrawnId };
  if (now.failedReads !== state.failedReads) return { fromSeq: 0, rowsRemoved: true, readsUndone: true, ...since };
  const withdrawn = store.db.prepare('SELECT min(seq) AS seq, coalesce(max(read_id <> 0), 0) AS fromFiles FROM withdrawn_events WHERE id > ?').get(state.withdrawnId) as {
    seq: number | null;
    fromFiles: number;
  };
  return { fromSeq: Math.min(state.seq + 1, withdrawn.seq ?? Infinity), rowsRemoved: withdrawn.fromFiles === 1, readsUndone: false, ...since };
}

/** Saves where the passes got to and clears the pending mark. Call in the passes' last transaction. */
export function savePassState(store: StagingStore, settings: PassSettings, summary: Record<string, unknown>): void {
  const marks = currentMarks(store);
  store.db
    .prepare(
      `INSERT INTO pass_state (name, seq, withdrawn_id, failed_reads, settings, summary) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET seq = excluded.seq, withdrawn_id = excluded.withdrawn_id, failed_reads = excluded.failed_reads,
         settings = excluded.settings, summary = excluded.summary`,
    )
    .run(NAME, marks.seq, marks.withdrawnId, marks.failedReads, JSON.stringify(settings), JSON.stringify(summary));
  store.db.prepare('DELETE FROM meta WHERE key = ?').run(PENDING_KEY);
}

/** Marks the passes pending: a staging run is about to change the staged rows. */
export function markPassesPending(store: StagingStore): void {
  store.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(PENDING_KEY, new Date().toISOString());
}

/** When a staging run began that did not finish its passes, if one did. */
export function passesPendingSince(store: StagingStore): string | undefined {
  const row = store.db.prepare('SELECT value FROM meta WHERE key = ?').get(PENDING_KEY) as { value: string } | undefined;
  return row?.value;
}

/**
 * Refuses to go on (an import) while the passes after staging are unfinished: the identity
 * links, group updates and session ids they stage would be missing from what is sent.
 */
export function refusePendingPasses(store: StagingStore): void {
  const since = passesPendingSince(store);
  if (since === undefined) return;
  throw new RefusedError(`the staging run begun at ${since} did not finish: the identity links, group updates and session ids staged after the files may be missing`, [
    'Run the same staging command again (export-source, identify-users or identify-groups): files already staged are recognised, and it finishes that work.',
  ]);
}

/** The id of the latest read: the reads a run begins have larger ones. */
export function lastReadId(store: StagingStore): number {
  return (store.db.prepare('SELECT coalesce(max(id), 0) AS id FROM source_reads').get() as { id: number }).id;
}

/** The reads completed since `lastReadBefore`, the reads a run began. */
export function readsAfter(store: StagingStore, lastReadBefore: number): number[] {
  return (store.db.prepare("SELECT id FROM source_reads WHERE id > ? AND status = 'done' ORDER BY id").all(lastReadBefore) as Array<{ id: number }>).map((r) => r.id);
}

/** What status shows of the passes: what they found when they last ran, and whether they are pending. */
export interface PassesReport {
  /** The totals of each pass when it last ran (identity links, group updates, sessions), if it ever did. */
  summary: Record<string, unknown> | null;
  maxUsersPerDevice: number | null;
  pendingSince: string | null;
}

export function passesReport(store: StagingStore): PassesReport {
  if (store.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pass_state'").get() === undefined) {
    return { summary: null, maxUsersPerDevice: null, pendingSince: null };
  }
  const state = loadPassState(store);
  return { summary: state?.summary ?? null, maxUsersPerDevice: state?.settings.maxUsersPerDevice ?? null, pendingSince: passesPendingSince(store) ?? null };
}
