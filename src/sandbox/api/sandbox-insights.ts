/**
 * The sandbox's built-in insights and dashboard, the things an export can be made of, and the
 * numbers behind them: events per day (or week, or month) from the sandbox's own events table.
 */
import type { SandboxStore } from '../sandbox-store.js';
import type { DailyCount } from './chart/bar-chart.js';

export interface SandboxInsight {
  id: number;
  name: string;
  /** Only events of this name; null counts every event. */
  event: string | null;
}

export const SANDBOX_INSIGHTS: readonly SandboxInsight[] = [
  { id: 1, name: 'Events per day', event: null },
  { id: 2, name: 'Pageviews per day', event: '$pageview' },
];

export const SANDBOX_DASHBOARDS: ReadonlyArray<{ id: number; name: string; insightId: number }> = [{ id: 1, name: 'Migration overview', insightId: 1 }];

/** What an export shows: a title for the chart and filename, and which events it counts. */
export interface RenderSpec {
  title: string;
  event: string | null;
}

export interface ExportSource {
  dashboard: number | null;
  insight: number | null;
  /** Parsed `export_context`: the sandbox reads `title`, `filename` and `event` from it. */
  context: Record<string, unknown> | null;
}

/** Pure: the chart an export renders, from what it was created with. */
export function renderSpec(source: ExportSource): RenderSpec {
  const dashboard = SANDBOX_DASHBOARDS.find((d) => d.id === source.dashboard);
  const insight = SANDBOX_INSIGHTS.find((i) => i.id === (dashboard?.insightId ?? source.insight));
  if (insight !== undefined) return { title: dashboard?.name ?? insight.name, event: insight.event };
  const context = source.context ?? {};
  const event = typeof context.event === 'string' ? context.event : null;
  const named = [context.title, context.filename].find((v): v is string => typeof v === 'string' && v.trim() !== '');
  return { title: named ?? (event === null ? 'Events per day' : `${event} per day`), event };
}

/** How much time one bar stands for. */
export type Interval = 'day' | 'week' | 'month';

/** What a chart of events shows: bars of `interval`, each starting on its `day`. */
export interface Series {
  interval: Interval;
  points: DailyCount[];
}

/** Bars a chart holds at most: past this, days become weeks, then months. */
export const MAX_BARS = 120;

const DAY_MS = 86_400_000;

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The first day of the bar holding `day`: itself, its week's Monday, or its month's first. */
function bucketStart(day: string, interval: Interval): string {
  if (interval === 'day') return day;
  if (interval === 'month') return `${day.slice(0, 7)}-01`;
  const ms = Date.parse(`${day}T00:00:00Z`);
  return isoDay(ms - ((new Date(ms).getUTCDay() + 6) % 7) * DAY_MS);
}

function nextBucket(start: string, interval: Interval): string {
  if (interval !== 'month') return isoDay(Date.parse(`${start}T00:00:00Z`) + (interval === 'week' ? 7 : 1) * DAY_MS);
  const date = new Date(`${start}T00:00:00Z`);
  return isoDay(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
}

/** Pure: daily counts (oldest first) summed into bars, empty bars included between the first and last. */
function bucket(counts: readonly DailyCount[], interval: Interval): DailyCount[] {
  const totals = new Map<string, number>();
  for (const c of counts) totals.set(bucketStart(c.day, interval), (totals.get(bucketStart(c.day, interval)) ?? 0) + c.count);
  const last = bucketStart(counts[counts.length - 1]!.day, interval);
  const out: DailyCount[] = [];
  for (let b = bucketStart(counts[0]!.day, interval); b <= last; b = nextBucket(b, interval)) out.push({ day: b, count: totals.get(b) ?? 0 });
  return out;
}

/** Pure: fills the days without events between the first and last, keeping the last `maxDays`. */
export function fillDays(counts: readonly DailyCount[], maxDays: number): DailyCount[] {
  return counts.length === 0 ? [] : bucket(counts, 'day').slice(-maxDays);
}

/**
 * Pure: the whole range that holds a project's events, first to last, not the last 90 days
 * (a migration's events are old): daily bars when they fit in `maxBars`, else weekly, else
 * monthly, keeping the newest `maxBars` months.
 */
export function seriesOf(counts: readonly DailyCount[], maxBars = MAX_BARS): Series {
  if (counts.length === 0) return { interval: 'day', points: [] };
  for (const interval of ['day', 'week'] as const) {
    const points = bucket(counts, interval);
    if (points.length <= maxBars) return { interval, points };
  }
  return { interval: 'month', points: bucket(counts, 'month').slice(-maxBars) };
}

/** A project's events charted over the range that holds them. */
export function eventSeries(store: SandboxStore, teamId: number, event: string | null): Series {
  const rows = store.db
    .prepare(
      `SELECT substr(strftime('%Y-%m-%dT%H:%M:%fZ', timestamp), 1, 10) AS day, COUNT(*) AS count FROM events
       WHERE team_id = ? AND (? IS NULL OR event = ?) GROUP BY day ORDER BY day`,
    )
    .all(teamId, event, event) as DailyCount[];
  return seriesOf(rows);
}
