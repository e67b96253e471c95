/**
 * Runs a HogQL query against the sandbox's store: compile, one prepared statement with the row
 * window bound as parameters, then values written as PostHog's API writes them (times in the
 * project's time zone). A query that would read more rows than the instance reads within its
 * execution time limit fails as ClickHouse's estimate or timeout does, without taking the time.
 */
import type { SandboxStore } from '../../sandbox-store.js';
import { compileHogQL, MAX_SELECT_RETURNED_ROWS, type CompiledHogQL } from './hogql-compile.js';
import { formatDateTime } from './hogql-literals.js';

export interface HogQLAnswer {
  query: CompiledHogQL;
  results: unknown[][];
  /** Only without LIMIT, as PostHog: null when the query set its own LIMIT. */
  hasMore: boolean | null;
}

/** How much one query may do: the instance's row cap, and the rows it reads within its execution time limit. */
export interface QueryLimits {
  /** Rows one answer holds at most (50,000; 10,000 on older self-hosted versions). */
  maxRows?: number;
  /** Rows a query reads before it hits the execution time limit (ClickHouse's TIMEOUT_EXCEEDED); unset: no limit. */
  maxScannedRows?: number;
  /** Rows above which ClickHouse's estimate refuses the query before reading (TOO_SLOW); unset: never. */
  maxEstimatedRows?: number;
}

/** Why a query ran too long: refused on ClickHouse's estimate, or stopped at its execution time limit. */
export type TooSlow = 'estimate' | 'timeout';

export type HogQLOutcome = { ok: true; answer: HogQLAnswer } | { ok: false; detail: string; tooSlow?: TooSlow };

function tooSlow(store: SandboxStore, query: CompiledHogQL, limits: QueryLimits): HogQLOutcome | undefined {
  if (limits.maxScannedRows === undefined && limits.maxEstimatedRows === undefined) return undefined;
  const scanned = (store.db.prepare(query.scanSql).pluck().get(query.params) as number) ?? 0;
  if (limits.maxEstimatedRows !== undefined && scanned > limits.maxEstimatedRows) {
    return {
      ok: false,
      tooSlow: 'estimate',
      detail: `Estimated query execution time (34.5 seconds) is too long. (the query reads ${scanned} rows; this sandbox estimates ${limits.maxEstimatedRows} within the limit)`,
    };
  }
  if (limits.maxScannedRows !== undefined && scanned > limits.maxScannedRows) {
    return {
      ok: false,
      tooSlow: 'timeout',
      detail: `Timeout exceeded: elapsed 10.5 seconds, maximum: 10. (the query reads ${scanned} rows; this sandbox reads ${limits.maxScannedRows} within the limit)`,
    };
  }
  return undefined;
}

export function runHogQL(store: SandboxStore, teamId: number, text: string, limits: QueryLimits = {}, timezone = 'UTC'): HogQLOutcome {
  const compiled = compileHogQL(text, teamId, limits.maxRows ?? MAX_SELECT_RETURNED_ROWS);
  if (!compiled.ok) return compiled;
  const query = compiled.query;
  const slow = tooSlow(store, query, limits);
  if (slow !== undefined) return slow;
  const rows = store.db
    .prepare(`${query.sql} LIMIT @limit OFFSET @offset`)
    .raw(true)
    .all({ ...query.params, limit: query.window.fetch, offset: query.window.skip }) as unknown[][];
  const kept = query.window.paginated ? rows.slice(0, query.window.limit) : rows;
  const results = kept.map((row) => row.map((value, i) => (query.kinds[i] === 'datetime' ? formatDateTime(value, timezone) : value)));
  return { ok: true, answer: { query, results, hasMore: query.window.paginated ? rows.length > query.window.limit : null } };
}
