/**
 * Read-only views of the staging file for `status` and `rejects`. Every figure comes from
 * counters or indexes, so status stays fast on tens of millions of events.
 */
import { bucketPrefixes, listedBucketObjects, type BucketPrefixReport } from './bucket-objects.js';
import { listDeadLetters, listProjectRecords, totalStaged, type DeadLetterRow } from './delivery-store.js';
import { latestRuns, overrideRecorded, type RunPace, type RunStatus } from './import-runs.js';
import { passesReport, type PassesReport } from './pass-state.js';
import { latestPreflights, type PreflightRecord } from './preflights.js';
import { groupTypeUses, illegalIds, propertyConflicts, ruleReport, type GroupTypeUse, type IllegalId, type PropertyTypeConflict, type RuleReport } from './rule-report.js';
import { rangeReports, type RangeSourceReport } from './range-report.js';
import { addByReason, COUNT_KEYS, emptyCounts, type ReadCounts, type SkippedBy } from './source-reads.js';
import type { LockHolder } from './staging-lock.js';
import { StagingStore } from './staging-store.js';

/**
 * A read's state: `partial`, interrupted and resumed by the next run over its file (or running
 * now); `interrupted`, interrupted and given up for a later read; `done`; `failed`, undone.
 */
export type ReadState = 'partial' | 'interrupted' | 'done' | 'failed';

export interface SourceReport extends ReadCounts {
  /** Skipped rows by reason (see SkippedBy); a read from before reasons were kept has none. */
  skippedBy: SkippedBy;
  path: string;
  format: string;
  command: string;
  status: ReadState;
  /** For a partial read, the line it is staged up to (the next line to read). */
  progressLine: number | null;
  /** Rows withdrawn by reads of this file (gone from it, replaced, undone): never sent. */
  withdrawn: number;
  sizeBytes: number;
  fingerprint: string | null;
  startedAt: string;
  finishedAt: string | null;
  error: string | null;
}

export interface KindReport {
  count: number;
  first: string | null;
  last: string | null;
}

export interface StagingReport {
  staging: string;
  /** Said when the file could only be read as it is on disk (a read-only disk); see StagingStore.readNote. */
  note: string | null;
  /** The process holding the writer lock (a running or killed import, export-source...), if any. */
  writer: LockHolder | null;
  sources: SourceReport[];
  /** Objects of s3:// and gs:// sources per prefix: done, partial, not read yet. */
  bucketPrefixes: BucketPrefixReport[];
  /** The sources' counts added up: rowsRead + added = staged + alreadyStaged + duplicates + skipped + rejected. */
  sourceTotals: ReadCounts & { withdrawn: number; skippedBy: SkippedBy };
  /** Withdrawn events (kept aside, never sent), and per project those it had received before. */
  withdrawn: { count: number; delivered: Array<{ project: string; count: number }> };
  events: KindReport;
  persons: KindReport;
  groups: KindReport;
  topEvents: Array<{ name: string; count: number }>;
  rejectsByReason: Array<{ reason: string; count: number }>;
  projects: ProjectReport[];
  /** The first dead letters, all projects. */
  deadLetters: DeadLetterRow[];
  /** The latest preflight of each project an import checked (or skipped it for). */
  preflights: Array<Omit<PreflightRecord, 'checks'>>;
  /** Identity links, group updates and sessions worked out after staging (see pass-state.ts). */
  passes: PassesReport;
  /** PostHog's ingestion rules: GeoIP, group types, ids it will not merge on, property types, re-assertions. */
  rules: RuleReport;
  /** The range ledger of each source API export-source fetched from. */
  ranges: RangeSourceReport[];
}

export interface ProjectReport {
  name: string;
  role: string;
  host: string;
  delivered: number;
  /** Delivered person updates ($identify), group updates ($groupidentify) and re-assertions, within `delivered`. */
  deliveredPersons: number;
  deliveredGroups: number;
  deliveredReassertions: number;
  pending: number;
  deadLetters: number;
  lastImport: { status: RunStatus; startedAt: string; finishedAt: string | null; stopReason: string | null; sample: number | null; pace: RunPace | null } | null;
  /** When an import into this project first used --skip-test-first, if ever. */
  testFirstOverrideAt: string | null;
}

export interface RejectRow {
  path: string;
  line: number;
  field: string;
  reason: string;
  message: string;
  raw: string;
}

export function kindReport(store: StagingStore, kind: number): KindReport {
  const count = store.db.prepare('SELECT coalesce(sum(count), 0) AS n FROM event_names WHERE kind = ?').get(kind) as { n: number };
  // Two subqueries, not min() and max() in one: each alone is a single seek in the send-order
  // index, together they scanned every row of the kind (a second and more on 5M events).
  const range = store.db.prepare('SELECT (SELECT min(timestamp_ms) FROM events WHERE kind = @kind) AS first, (SELECT max(timestamp_ms) FROM events WHERE kind = @kind) AS last').get({ kind }) as {
    first: number | null;
    last: number | null;
  };
  const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
  return { count: count.n, first: iso(range.first), last: iso(range.last) };
}

/**
 * The columns of a read added by later versions, as the report selects them: a file opened
 * read-only is not brought to this version's schema, so a file staged by an older migrate may
 * lack them (it had nothing in them).
 */
function laterColumns(store: StagingStore): string {
  const columns = new Set((store.db.prepare("SELECT name FROM pragma_table_info('source_reads')").all() as Array<{ name: string }>).map((c) => c.name));
  return [columns.has('rows_added') ? 'r.rows_added AS added' : '0 AS added', columns.has('skipped_by') ? 'r.skipped_by AS skippedBy' : "'{}' AS skippedBy"].join(', ');
}

/** The latest read of each source, in the order sources were first read. */
function sourceReports(store: StagingStore): SourceReport[] {
  const rows = store.db
    .prepare(
      `SELECT s.path, s.format, r.command,
              CASE WHEN r.status <> 'reading' THEN r.status WHEN r.superseded_by IS NULL THEN 'partial' ELSE 'interrupted' END AS status,
              iif(r.status = 'reading', r.progress_line, NULL) AS progressLine,
              (SELECT coalesce(sum(x.rows_withdrawn), 0) FROM source_reads x WHERE x.source_id = s.id) AS withdrawn,
              r.size_bytes AS sizeBytes, r.fingerprint, r.rows_read AS rowsRead,
              r.rows_staged AS staged, r.rows_already_staged AS alreadyStaged, r.rows_duplicate AS duplicates,
              r.rows_skipped AS skipped, r.rows_rejected AS rejected, r.rows_recent AS recent, ${laterColumns(store)},
              r.started_at AS startedAt, r.finished_at AS finishedAt, r.error
       FROM sources s JOIN source_reads r ON r.id = (SELECT max(id) FROM source_reads WHERE source_id = s.id)
       ORDER BY s.id`,
    )
    .all() as Array<Omit<SourceReport, 'skippedBy'> & { skippedBy: string }>;
  return rows.map((row) => ({ ...row, skippedBy: JSON.parse(row.skippedBy) as SkippedBy }));
}

/** Over the reads whose rows are kept: a failed read's rows were removed, so its counts are not the file's. */
function sourceTotals(sources: readonly SourceReport[]): StagingReport['sourceTotals'] {
  const totals = { ...emptyCounts(), withdrawn: 0, skippedBy: {} };
  for (const source of sources) {
    if (source.status === 'failed') continue;
    for (const key of COUNT_KEYS) totals[key] += source[key];
    totals.withdrawn += source.withdrawn;
    addByReason(totals.skippedBy, source.skippedBy);
  }
  return totals;
}

function withdrawnReport(store: StagingStore): StagingReport['withdrawn'] {
  const total = store.db.prepare('SELECT count(*) AS n FROM withdrawn_events').get() as { n: number };
  const delivered = store.db.prepare('SELECT j.value AS project, count(*) AS count FROM withdrawn_events w, json_each(w.delivered_to) j GROUP BY j.value ORDER BY j.value').all() as Array<{
    project: string;
    count: number;
  }>;
  return { count: total.n, delivered };
}

/** Delivered person and group updates: few rows, found through the send-order index. */
function deliveredUpdates(store: StagingStore, projectId: number): { persons: number; groups: number; reassertions: number } {
  const rows = store.db
    .prepare(
      `SELECT e.kind, count(*) AS n FROM events e WHERE e.kind > 0
       AND EXISTS (SELECT 1 FROM deliveries d WHERE d.project_id = ? AND d.seq = e.seq) GROUP BY e.kind`,
    )
    .all(projectId) as Array<{ kind: number; n: number }>;
  const of = (kind: number): number => rows.find((r) => r.kind === kind)?.n ?? 0;
  return { persons: of(1), groups: of(2), reassertions: of(3) };
}

function projectReports(store: StagingStore): ProjectReport[] {
  const total = totalStaged(store);
  const runs = new Map(latestRuns(store).map((run) => [run.projectId, run]));
  return listProjectRecords(store).map((p) => {
    const run = runs.get(p.id);
    const updates = deliveredUpdates(store, p.id);
    return {
      name: p.name,
      role: p.role,
      host: p.host,
      delivered: p.delivered,
      deliveredPersons: updates.persons,
      deliveredGroups: updates.groups,
      deliveredReassertions: updates.reassertions,
      pending: total - p.delivered - p.deadLetters,
      deadLetters: p.deadLetters,
      lastImport: run ? { status: run.status, startedAt: run.startedAt, finishedAt: run.finishedAt, stopReason: run.stopReason, sample: run.sample, pace: run.pace } : null,
      testFirstOverrideAt: overrideRecorded(store, p.id) ?? null,
    };
  });
}

const DEAD_LETTERS_SHOWN = 20;

export function stagingReport(store: StagingStore, topN = 10): StagingReport {
  const sources = sourceReports(store);
  return {
    staging: store.path,
    note: store.readNote ?? null,
    writer: store.lockHolder() ?? null,
    sources,
    bucketPrefixes: bucketPrefixes(listedBucketObjects(store), new Map(sources.map((s) => [s.path, s.status]))),
    sourceTotals: sourceTotals(sources),
    withdrawn: withdrawnReport(store),
    events: kindReport(store, 0),
    persons: kindReport(store, 1),
    groups: kindReport(store, 2),
    topEvents: store.db.prepare('SELECT name, count FROM event_names WHERE kind = 0 ORDER BY count DESC, name LIMIT ?').all(topN) as Array<{ name: string; count: number }>,
    rejectsByReason: store.db
      .prepare(
        `SELECT j.reason, count(*) AS count FROM rejects j JOIN source_reads r ON r.id = j.read_id
         WHERE r.status = 'done' GROUP BY j.reason ORDER BY count DESC, j.reason`,
      )
      .all() as Array<{ reason: string; count: number }>,
    projects: projectReports(store),
    deadLetters: listDeadLetters(store, DEAD_LETTERS_SHOWN),
    preflights: latestPreflights(store).map(({ checks: _checks, ...preflight }) => preflight),
    passes: passesReport(store),
    rules: ruleReport(store),
    ranges: rangeReports(store),
  };
}

/** What `rejects --warnings` lists: every row kind PostHog would alter, with where it was first staged. */
export interface StagingWarnings {
  illegalIds: IllegalId[];
  propertyConflicts: PropertyTypeConflict[];
  groupTypes: GroupTypeUse[];
}

export function stagingWarnings(store: StagingStore): StagingWarnings {
  return { illegalIds: illegalIds(store).ids, propertyConflicts: propertyConflicts(store), groupTypes: groupTypeUses(store) };
}

/** Rejected rows of each file's latest complete read, by file then line. */
export function listRejects(store: StagingStore, options: { reason?: string; limit?: number } = {}): RejectRow[] {
  return store.db
    .prepare(
      `SELECT s.path, j.line, j.field, j.reason, j.message, j.raw FROM rejects j
       JOIN source_reads r ON r.id = j.read_id JOIN sources s ON s.id = r.source_id
       WHERE r.status = 'done' AND (@reason IS NULL OR j.reason = @reason)
       ORDER BY s.id, j.line LIMIT @limit`,
    )
    .all({ reason: options.reason ?? null, limit: options.limit ?? -1 }) as RejectRow[];
}

/** Opens the staging file at `path` read-only (it must exist), reads from it, and closes it. */
function readFrom<T>(path: string, read: (store: StagingStore) => T): T {
  const store = StagingStore.open(path, { readOnly: true });
  try {
    return read(store);
  } catch (error) {
    throw store.failure(error);
  } finally {
    store.close();
  }
}

/** The `status` use case: the report of the staging file at `path`. */
export function readStagingReport(path: string): StagingReport {
  return readFrom(path, (store) => stagingReport(store));
}

/** The `rejects --warnings` use case. */
export function readWarnings(path: string): StagingWarnings {
  return readFrom(path, (store) => stagingWarnings(store));
}

/** The `rejects` use case: the rejected rows of the staging file at `path`. */
export function readRejects(path: string, options: { reason?: string; limit?: number } = {}): RejectRow[] {
  return readFrom(path, (store) => listRejects(store, options));
}
