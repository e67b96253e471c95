/**
 * The sandbox's HogQL front door: query text in, a statement with its row window out, or the
 * reason it is refused. Pure. Row caps follow PostHog's API: without LIMIT, 100 rows and
 * `hasMore`; with LIMIT, at most 50,000 rows and no `hasMore`.
 */
import { compileQuery, type CompiledQuery } from './hogql-query.js';
import { parseHogQL } from './hogql-parser.js';
import { QueryProblem } from './query-problem.js';
import { MAX_QUERY_ROWS } from '../../../posthog/limits.js';

/** Rows a query without LIMIT answers (PostHog's DEFAULT_RETURNED_ROWS). */
export const DEFAULT_RETURNED_ROWS = 100;
/** The most rows any query answers; a larger LIMIT is lowered to it. */
export const MAX_SELECT_RETURNED_ROWS = MAX_QUERY_ROWS;

export interface RowWindow {
  /** Rows to ask SQLite for (one more than answered when paginating, to learn `hasMore`). */
  fetch: number;
  skip: number;
  /** True without LIMIT: PostHog then reports hasMore, limit and offset. */
  paginated: boolean;
  /** Rows answered at most. */
  limit: number;
}

export interface CompiledHogQL extends CompiledQuery {
  window: RowWindow;
}

export type CompileOutcome = { ok: true; query: CompiledHogQL } | { ok: false; detail: string };

/**
 * Without LIMIT, PostHog's paginator sets LIMIT 101 and OFFSET 0 itself: an OFFSET written
 * without LIMIT is replaced, as there.
 */
export function rowWindow(limit: number | undefined, offset: number | undefined, maxRows = MAX_SELECT_RETURNED_ROWS): RowWindow {
  if (limit === undefined) return { fetch: DEFAULT_RETURNED_ROWS + 1, skip: 0, paginated: true, limit: DEFAULT_RETURNED_ROWS };
  const capped = Math.min(limit, maxRows);
  return { fetch: capped, skip: offset ?? 0, paginated: false, limit: capped };
}

/** @param maxRows the instance's cap on one answer: 50,000 today, 10,000 on older versions. */
export function compileHogQL(text: string, teamId: number, maxRows = MAX_SELECT_RETURNED_ROWS): CompileOutcome {
  try {
    const parsed = parseHogQL(text);
    const compiled = compileQuery(parsed, teamId);
    const window = rowWindow(parsed.limit, parsed.offset, maxRows);
    const hogql = `${compiled.hogql} LIMIT ${window.limit}${window.skip > 0 ? ` OFFSET ${window.skip}` : ''}`;
    return { ok: true, query: { ...compiled, hogql, window } };
  } catch (error) {
    if (error instanceof QueryProblem) return { ok: false, detail: error.detail };
    throw error;
  }
}
