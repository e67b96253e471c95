/**
 * `POST /api/projects/:id/query/` (and under `/api/environments/`): runs a HogQLQuery over the
 * sandbox's events, persons, person_distinct_ids and groups, and answers in the shape of
 * PostHog's HogQL query response. Needs a key with `query:read`; refusals are PostHog's 400
 * body naming what is wrong or unsupported; the endpoint's own rate limits answer 429.
 */
import { createHash } from 'node:crypto';
import type { Route, SandboxRequest, SandboxResponse } from '../../router.js';
import { json } from '../../router.js';
import { projectRoute, type ApiContext } from '../api-auth.js';
import { readJsonObject } from '../api-body.js';
import { throttled, validationError } from '../api-errors.js';
import { takeRequest, type ThrottleWindow } from '../api-throttle.js';
import { runHogQL, type QueryLimits } from './query-runner.js';

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

const answerQuery =
  (options: QueryOptions) =>
  async (request: SandboxRequest, { store, project, now, caller }: ApiContext): Promise<SandboxResponse> => {
    const wait = takeRequest(store, `query:${caller.keyId}`, now().getTime(), options.throttle ?? CLOUD_QUERY_THROTTLE);
    if (wait > 0) return throttled(wait);
    const body = await readJsonObject(request);
    if (!body.ok) return body.response;
    const text = hogqlText(body.value);
    if (typeof text !== 'string') return text;
    await options.gate?.(text);
    const outcome = runHogQL(store, project.id, text, options, project.timezone);
    // PostHog hands ClickHouse's timeout back as a 400 naming it (its exposed query errors are validation errors).
    if (!outcome.ok) return validationError(outcome.timeout ? 'timeout' : 'invalid_input', outcome.detail, null);
    const { query, results, hasMore } = outcome.answer;
    const refreshed = now();
    return json(200, {
      cache_key: `cache_${createHash('sha256').update(`${project.id}:${text}`).digest('hex').slice(0, 32)}`,
      is_cached: false,
      last_refresh: refreshed.toISOString(),
      next_allowed_client_refresh: new Date(refreshed.getTime() + 60_000).toISOString(),
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
    });
  };

export const queryRoutes = (options: QueryOptions = {}): Route[] => [projectRoute('POST', PATH, 'query:read', answerQuery(options))];
