/**
 * Preflights on record: each `migrate doctor` an import ran before a project's first chunk
 * (or the `--skip-preflight` that bypassed it), so it runs once per staging file and project,
 * and `status` can say how it went. Messages are stored redacted.
 */
import { redact } from '../util/redact.js';
import type { StagingStore } from './staging-store.js';

export type PreflightOutcome = 'passed' | 'failed' | 'skipped';

export interface PreflightCheckRecord {
  check: string;
  verdict: string;
  message: string;
}

export interface PreflightRecord {
  project: string;
  host: string;
  outcome: PreflightOutcome;
  problems: number;
  warnings: number;
  checks: PreflightCheckRecord[];
  createdAt: string;
}

interface PreflightRow extends Omit<PreflightRecord, 'checks'> {
  checks: string;
}

const COLUMNS = 'project, host, outcome, problems, warnings, checks, created_at AS createdAt';

function toRecord(row: PreflightRow): PreflightRecord {
  return { ...row, checks: JSON.parse(row.checks) as PreflightCheckRecord[] };
}

export function recordPreflight(store: StagingStore, record: Omit<PreflightRecord, 'createdAt'>, at = new Date()): void {
  const checks = record.checks.map((c) => ({ check: c.check, verdict: c.verdict, message: redact(c.message) }));
  store.db
    .prepare('INSERT INTO preflights (project, host, outcome, problems, warnings, checks, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(record.project, record.host, record.outcome, record.problems, record.warnings, JSON.stringify(checks), at.toISOString());
}

/** The preflight that lets imports of `project` to `host` go without another: passed, or skipped on purpose. */
export function settledPreflight(store: StagingStore, project: string, host: string): PreflightRecord | undefined {
  const row = store.db.prepare(`SELECT ${COLUMNS} FROM preflights WHERE project = ? AND host = ? AND outcome IN ('passed', 'skipped') ORDER BY id DESC LIMIT 1`).get(project, host) as
    | PreflightRow
    | undefined;
  return row === undefined ? undefined : toRecord(row);
}

/** The latest preflight of each project, in the order projects were first checked. */
export function latestPreflights(store: StagingStore): PreflightRecord[] {
  const rows = store.db
    .prepare(`SELECT ${COLUMNS} FROM preflights WHERE id IN (SELECT max(id) FROM preflights GROUP BY project) ORDER BY (SELECT min(id) FROM preflights p WHERE p.project = preflights.project)`)
    .all() as PreflightRow[];
  return rows.map(toRecord);
}
