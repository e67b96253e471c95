/**
 * What one preflight check concludes: a verdict, a sentence saying what was found, and what to
 * do about it. The report of `migrate doctor` is the list of them. Pure.
 */

export type Verdict = 'ok' | 'warning' | 'problem';

export type CheckName =
  | 'host'
  | 'project-key'
  | 'separate-projects'
  | 'scopes'
  | 'disk'
  | 'clock'
  | 'node'
  | 'existing-data'
  | 'ingestion-rules'
  | 'billing'
  | 'source-project'
  | 'source-query'
  | 'source-data'
  | 'buckets';

export interface CheckResult {
  check: CheckName;
  verdict: Verdict;
  /** What was found, in one sentence (no key ever appears in it). */
  message: string;
  /** What to do, for a warning or a problem. */
  fix?: string;
  /** Figures behind the message, for --json (e.g. events per day). */
  details?: Record<string, unknown>;
}

export interface DoctorReport {
  project: string;
  host: string;
  verdict: Verdict;
  problems: number;
  warnings: number;
  checks: CheckResult[];
}

export function ok(check: CheckName, message: string, details?: Record<string, unknown>): CheckResult {
  return details === undefined ? { check, verdict: 'ok', message } : { check, verdict: 'ok', message, details };
}

export function warning(check: CheckName, message: string, fix: string, details?: Record<string, unknown>): CheckResult {
  return details === undefined ? { check, verdict: 'warning', message, fix } : { check, verdict: 'warning', message, fix, details };
}

export function problem(check: CheckName, message: string, fix: string, details?: Record<string, unknown>): CheckResult {
  return details === undefined ? { check, verdict: 'problem', message, fix } : { check, verdict: 'problem', message, fix, details };
}

export function doctorReport(project: string, host: string, checks: CheckResult[]): DoctorReport {
  const problems = checks.filter((c) => c.verdict === 'problem').length;
  const warnings = checks.filter((c) => c.verdict === 'warning').length;
  return { project, host, verdict: problems > 0 ? 'problem' : warnings > 0 ? 'warning' : 'ok', problems, warnings, checks };
}
