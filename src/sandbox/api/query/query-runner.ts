/**
 * Runs a HogQL query against the sandbox's store: compile, one prepared statement with the row
 * window bound as parameters, then values written as PostHog's API writes them.
 */
import type { SandboxStore } from '../../sandbox-store.js';
import { compileHogQL, type CompiledHogQL } from './hogql-compile.js';
import { formatDateTime } from './hogql-literals.js';

export interface HogQLAnswer {
  query: CompiledHogQL;
  results: unknown[][];
  /** Only without LIMIT, as PostHog: null when the query set its own LIMIT. */
  hasMore: boolean | null;
}

export type HogQLOutcome = { ok: true; answer: HogQLAnswer } | { ok: false; detail: string };

export function runHogQL(store: SandboxStore, teamId: number, text: string): HogQLOutcome {
  const compiled = compileHogQL(text, teamId);
  if (!compiled.ok) return compiled;
  const query = compiled.query;
  const rows = store.db
    .prepare(`${query.sql} LIMIT @limit OFFSET @offset`)
    .raw(true)
    .all({ ...query.params, limit: query.window.fetch, offset: query.window.skip }) as unknown[][];
  const kept = query.window.paginated ? rows.slice(0, query.window.limit) : rows;
  const results = kept.map((row) => row.map((value, i) => (query.kinds[i] === 'datetime' ? formatDateTime(value) : value)));
  return { ok: true, answer: { query, results, hasMore: query.window.paginated ? rows.length > query.window.limit : null } };
}
