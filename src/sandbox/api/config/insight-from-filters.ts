/**
 * An insight saved with legacy `filters` is answered as PostHog answers it today: `filters: {}`
 * and the query its filters convert to (`query_from_filters`). The common part of PostHog's
 * conversion: the insight kind, series from events and actions in their order, properties,
 * breakdown, aggregation, interval and date range.
 */
import { isRecord } from './config-kind.js';

type Json = Record<string, unknown>;

const QUERY_KIND: Readonly<Record<string, string>> = {
  TRENDS: 'TrendsQuery',
  FUNNELS: 'FunnelsQuery',
  RETENTION: 'RetentionQuery',
  PATHS: 'PathsQuery',
  STICKINESS: 'StickinessQuery',
  LIFECYCLE: 'LifecycleQuery',
};

function entity(entry: Json, type: 'events' | 'actions'): Json & { order: number } {
  const common = { ...(entry.name !== undefined ? { name: entry.name } : {}), ...(entry.math !== undefined ? { math: entry.math } : {}) };
  const node = type === 'actions' ? { kind: 'ActionsNode', id: entry.id, ...common } : { kind: 'EventsNode', event: entry.id ?? null, ...common };
  return { ...node, order: typeof entry.order === 'number' ? entry.order : Number.MAX_SAFE_INTEGER };
}

function series(filters: Json): Json[] {
  const of = (type: 'events' | 'actions') => (Array.isArray(filters[type]) ? (filters[type] as unknown[]).filter(isRecord).map((entry) => entity(entry, type)) : []);
  return [...of('events'), ...of('actions')].sort((a, b) => a.order - b.order).map(({ order: _order, ...node }) => node);
}

function properties(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : { type: 'AND', values: [{ type: 'AND', values: value }] };
  return isRecord(value) && Object.keys(value).length > 0 ? value : undefined;
}

function breakdownFilter(filters: Json): Json | undefined {
  if (filters.breakdown === undefined || filters.breakdown === null) return undefined;
  const keys = ['breakdown', 'breakdown_type', 'breakdown_group_type_index', 'breakdown_normalize_url', 'breakdown_limit'];
  return Object.fromEntries(keys.filter((key) => filters[key] !== undefined).map((key) => [key, filters[key]]));
}

/** `filter_to_query`, for the fields above. */
export function queryFromFilters(filters: Json): Json {
  const source: Json = { kind: QUERY_KIND[String(filters.insight ?? 'TRENDS').toUpperCase()] ?? 'TrendsQuery' };
  const nodes = series(filters);
  if (nodes.length > 0) source.series = nodes;
  const props = properties(filters.properties);
  if (props !== undefined) source.properties = props;
  const breakdown = breakdownFilter(filters);
  if (breakdown !== undefined) source.breakdownFilter = breakdown;
  if (typeof filters.aggregation_group_type_index === 'number') source.aggregation_group_type_index = filters.aggregation_group_type_index;
  if (typeof filters.interval === 'string') source.interval = filters.interval;
  if (filters.date_from !== undefined || filters.date_to !== undefined) source.dateRange = { date_from: filters.date_from ?? null, date_to: filters.date_to ?? null };
  if (filters.filter_test_accounts !== undefined) source.filterTestAccounts = filters.filter_test_accounts;
  return { kind: 'InsightVizNode', source };
}

/** The insight's `query` and `filters` as answered: a saved query as it is, else the conversion of its filters. */
export function answeredQuery(body: Json): { query: unknown; filters: Json } {
  if (body.query !== undefined && body.query !== null) return { query: body.query, filters: {} };
  if (isRecord(body.filters) && Object.keys(body.filters).length > 0) return { query: queryFromFilters(body.filters), filters: {} };
  return { query: null, filters: isRecord(body.filters) ? body.filters : {} };
}
