/**
 * `POST /api/projects/:id/query/` (and under `/api/environments/`): runs a HogQLQuery over the
 * sandbox's events, persons, person_distinct_ids and groups, and answers in the shape of
 * PostHog's HogQL query response, from its cache when `refresh` allows (query-cache.ts). Needs
 * a key with `query:read`; refusals are PostHog's 400 body naming what is wrong or
 * unsupported, a query too slow its 512 or 504; the endpoint's own rate limits answer 429.
 */
import type { Route, SandboxRequest, SandboxResponse } from '../../router.js';
import { json } from '../../router.js';
import { projectRoute, type ApiContext } from '../api-auth.js';
import { readJsonObject } from '../api-body.js';
import { apiError, throttled, validationError } from '../api-errors.js';
import { takeRequest, type ThrottleWindow } from '../api-throttle.js';
import { cacheKeyOf, cacheModeOf, HOGQL_CACHE_MS, QueryCache } from './query-cache.js';
import { runHogQL, type QueryLimits, type TooSlow } from './query-runner.js';

const PATH = /^\/api\/(?:projects|environments)\/(\d+)\/query\/?$/;

/** The HogQL text of a request body, or the 400 that says why there is none. */
export function hogqlText(body: Record<string, unknown>): string | SandboxResponse {
  const query = body.query;
  if (query === undefined || query === null) return validationError('required', 'This field is required.', 'query');
  if (typeof query !== 'object' || Array.isArray(query)) return validationError('invalid_input', 'Expected a query object, like {"kind": "HogQLQuery", "query": "SELECT ..."}.', 'query');
  const { kind, query: text, values } = query as Record<string, unknown>;
  if (kind !== 'HogQLQuery') {
    return validationError('invalid_input', `The sandbox answers HogQLQuery queries only, not ${typeof kind === 'string' ? kind : JSON.stringify(kind ?? null)}.`, 'query');
  }
  if (typeof text !== 'string' || text.trim() === '') return validationError('invalid_input', 'A HogQLQuery needs its SELECT text in "query".', 'query');
  if (values !== undefined && values !== null && Object.keys(values as object).length > 0) {
    return validationError('invalid_input', 'Placeholders ({name} with "values") are not supported by the sandbox\'s HogQL subset (see docs/sandbox-api.md).', null);
  }
  return text;
}

/** The query endpoint's limits: the API-queries tier on Cloud, 240 a minute and 2,400 an hour per key. */
export const CLOUD_QUERY_THROTTLE: readonly ThrottleWindow[] = [
  { limit: 240, spanMs: 60_000 },
  { limit: 2400, spanMs: 3_600_000 },
];

export interface QueryOptions extends QueryLimits {
  /** The query endpoint's rate limits per key. Default CLOUD_QUERY_THROTTLE; [] for none. */
  throttle?: readonly ThrottleWindow[];
  /** Awaited before each query is answered (tests hold one here to stop a client mid-window). */
  gate?: (query: string) => Promise<void> | void;
}

/** The 5xx PostHog's API gives for a query ClickHouse found too slow (`posthog/errors.py`). */
function tooSlowAnswer(kind: TooSlow, detail: string): SandboxResponse {
  // ClickHouseEstimatedQueryExecutionTimeTooLong (512) and ClickHouseQueryTimeOut (504): server errors, code "error".
  if (kind === 'estimate') return apiError(512, 'server_error', 'error', `Estimated query execution time is too long. Try reducing its scope by changing the time range. ${detail}`);
  return apiError(
    504,
    'server_error',
    'error',
    `Query has hit the max execution time before completing. See our docs for how to improve your query performance. You may need to materialize. ${detail}`,
  );
}

/** A fresh answer to the query, or the refusal that stands for it. */
function calculate(
  store: ApiContext['store'],
  project: ApiContext['project'],
  text: string,
  options: QueryOptions,
  refreshedMs: number,
  cacheKey: string,
): { ok: true; body: Record<string, unknown> } | { ok: false; response: SandboxResponse } {
  const outcome = runHogQL(store, project.id, text, options, project.timezone);
  if (!outcome.ok) return { ok: false, response: outcome.tooSlow === undefined ? validationError('invalid_input', outcome.detail, null) : tooSlowAnswer(outcome.tooSlow, outcome.detail) };
  const { query, results, hasMore } = outcome.answer;
  const body = {
    cache_key: cacheKey,
    is_cached: false,
    last_refresh: new Date(refreshedMs).toISOString(),
    next_allowed_client_refresh: new Date(refreshedMs + 60_000).toISOString(),
    cache_target_age: new Date(refreshedMs + HOGQL_CACHE_MS).toISOString(),
    timezone: project.timezone,
    query_status: null,
    query: text,
    hogql: query.hogql,
    clickhouse: null,
    error: null,
    timings: [],
    columns: query.columns,
    types: query.types,
    results,
    hasMore,
    limit: query.window.paginated ? query.window.limit : null,
    offset: query.window.paginated ? query.window.skip : null,
  };
  return { ok: true, body };
}

const answerQuery =
  (options: QueryOptions, cache: QueryCache) =>
  async (request: SandboxRequest, { store, project, now, caller }: ApiContext): Promise<SandboxResponse> => {
    const wait = takeRequest(store, `query:${caller.keyId}`, now().getTime(), options.throttle ?? CLOUD_QUERY_THROTTLE);
    if (wait > 0) return throttled(wait);
    const body = await readJsonObject(request);
    if (!body.ok) return body.response;
    const text = hogqlText(body.value);
    if (typeof text !== 'string') return text;
    const mode = cacheModeOf(body.value.refresh);
    if (mode === undefined)
      return validationError('invalid_input', `The sandbox runs refresh "blocking", "force_blocking" and "force_cache" only, not ${JSON.stringify(body.value.refresh)}.`, 'refresh');
    await options.gate?.(text);
    const key = cacheKeyOf(project.id, body.value.query);
    const nowMs = now().getTime();
    const cached = mode === 'cache-only' ? cache.any(key) : mode === 'cache-if-fresh' ? cache.fresh(key, nowMs) : undefined;
    if (cached !== undefined) return json(200, { ...cached.body, is_cached: true });
    if (mode === 'cache-only') return json(200, { cache_key: key, query_status: null });
    const answer = calculate(store, project, text, options, nowMs, key);
    if (!answer.ok) return answer.response;
    cache.store(key, { body: answer.body, lastRefreshMs: nowMs });
    return json(200, answer.body);
  };

export const queryRoutes = (options: QueryOptions = {}): Route[] => [projectRoute('POST', PATH, 'query:read', answerQuery(options, new QueryCache()))];
