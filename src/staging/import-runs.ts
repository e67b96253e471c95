/**
 * Import runs: one row per `migrate import`, so `migrate resume` knows what to continue and
 * with which options, and so the test-before-production override stays on record.
 */
import type { StagingStore } from './staging-store.js';

export type RunStatus = 'running' | 'done' | 'stopped' | 'interrupted' | 'failed' | 'superseded';

export interface ImportRun {
  id: number;
  projectId: number;
  project: string;
  status: RunStatus;
  /** At most this many events in the run (import --sample), or null for all. */
  sample: number | null;
  skipTestFirst: boolean;
  /** Delivery options as given (JSON object of numbers and booleans). */
  settings: Record<string, unknown>;
  configPath: string | null;
  delivered: number;
  deadLetters: number;
  startedAt: string;
  finishedAt: string | null;
  stopReason: string | null;
  /** What the run's last session's pace came to; null before it ended (or for runs of earlier versions). */
  pace: RunPace | null;
}

/** A run's pace as recorded at its end. */
export interface RunPace {
  eventsPerSec: number;
  requests: number;
  /** Requests refused for load (429, 503) or not answered in time. */
  refused: number;
  /** Time chunks spent waiting to retry, summed over chunks, in ms. */
  retryWaitMs: number;
}

interface RunRow extends Omit<ImportRun, 'skipTestFirst' | 'settings' | 'pace'> {
  skipTestFirst: number;
  settings: string;
  pace: string | null;
}

const RUN_COLUMNS = `r.id, r.project_id AS projectId, p.name AS project, r.status, r.sample, r.skip_test_first AS skipTestFirst,
  r.settings, r.config_path AS configPath, r.delivered, r.dead_letters AS deadLetters, r.started_at AS startedAt,
  r.finished_at AS finishedAt, r.stop_reason AS stopReason, r.pace`;

function toRun(row: RunRow | undefined): ImportRun | undefined {
  if (row === undefined) return undefined;
  return { ...row, skipTestFirst: row.skipTestFirst === 1, settings: JSON.parse(row.settings) as Record<string, unknown>, pace: row.pace === null ? null : (JSON.parse(row.pace) as RunPace) };
}

export interface StartRun {
  projectId: number;
  sample: number | undefined;
  skipTestFirst: boolean;
  settings: Record<string, unknown>;
  configPath: string | undefined;
}

/** Starts a run; earlier unfinished runs of the project are superseded by it. */
export function startRun(store: StagingStore, run: StartRun): ImportRun {
  return store.transaction(() => {
    const now = new Date().toISOString();
    store.db.prepare("UPDATE import_runs SET status = 'superseded', finished_at = ? WHERE project_id = ? AND status NOT IN ('done', 'superseded')").run(now, run.projectId);
    const result = store.db
      .prepare(
        `INSERT INTO import_runs (project_id, status, sample, skip_test_first, settings, config_path, started_at, updated_at)
         VALUES (?, 'running', ?, ?, ?, ?, ?, ?)`,
      )
      .run(run.projectId, run.sample ?? null, run.skipTestFirst ? 1 : 0, JSON.stringify(run.settings), run.configPath ?? null, now, now);
    return getRun(store, Number(result.lastInsertRowid))!;
  });
}

export function getRun(store: StagingStore, id: number): ImportRun | undefined {
  return toRun(store.db.prepare(`SELECT ${RUN_COLUMNS} FROM import_runs r JOIN projects p ON p.id = r.project_id WHERE r.id = ?`).get(id) as RunRow | undefined);
}

/** The latest run not done (of the named project, when given). A run left 'running' was killed. */
export function latestUnfinishedRun(store: StagingStore, project?: string): ImportRun | undefined {
  const row = store.db
    .prepare(
      `SELECT ${RUN_COLUMNS} FROM import_runs r JOIN projects p ON p.id = r.project_id
       WHERE r.status IN ('running', 'stopped', 'interrupted', 'failed') AND (@project IS NULL OR p.name = @project)
       ORDER BY r.id DESC LIMIT 1`,
    )
    .get({ project: project ?? null }) as RunRow | undefined;
  return toRun(row);
}

/** The latest run of each project, for status. */
export function latestRuns(store: StagingStore): ImportRun[] {
  const rows = store.db
    .prepare(
      `SELECT ${RUN_COLUMNS} FROM import_runs r JOIN projects p ON p.id = r.project_id
       WHERE r.id IN (SELECT max(id) FROM import_runs GROUP BY project_id) ORDER BY p.id`,
    )
    .all() as RunRow[];
  return rows.map((row) => toRun(row)!);
}

/** Whether any run of the project was started with the test-before-production override. */
export function overrideRecorded(store: StagingStore, projectId: number): string | undefined {
  const row = store.db.prepare('SELECT min(started_at) AS at FROM import_runs WHERE project_id = ? AND skip_test_first = 1').get(projectId) as { at: string | null };
  return row.at ?? undefined;
}

export function reopenRun(store: StagingStore, id: number): void {
  store.db.prepare("UPDATE import_runs SET status = 'running', finished_at = NULL, stop_reason = NULL, updated_at = ? WHERE id = ?").run(new Date().toISOString(), id);
}

export function endRun(store: StagingStore, id: number, status: Exclude<RunStatus, 'running' | 'superseded'>, stopReason?: string, pace?: RunPace): void {
  const now = new Date().toISOString();
  const paceJson = pace === undefined ? null : JSON.stringify(pace);
  store.db
    .prepare('UPDATE import_runs SET status = ?, finished_at = ?, updated_at = ?, stop_reason = ?, pace = coalesce(?, pace) WHERE id = ?')
    .run(status, now, now, stopReason ?? null, paceJson, id);
}
