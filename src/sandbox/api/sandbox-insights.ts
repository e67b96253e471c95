/**
 * The sandbox's built-in insights and dashboard, the things an export can be made of, and the
 * numbers behind them: events per day from the sandbox's own events table.
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

function dayAfter(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** Pure: fills the days without events between the first and last, keeping the last `maxDays`. */
export function fillDays(counts: readonly DailyCount[], maxDays: number): DailyCount[] {
  if (counts.length === 0) return [];
  const byDay = new Map(counts.map((c) => [c.day, c.count]));
  const last = counts[counts.length - 1]!.day;
  const filled: DailyCount[] = [];
  for (let day = counts[0]!.day; day <= last; day = dayAfter(day)) filled.push({ day, count: byDay.get(day) ?? 0 });
  return filled.slice(-maxDays);
}

/** Events per UTC day in a project, oldest first, days without events included. */
export function eventsPerDay(store: SandboxStore, teamId: number, event: string | null, maxDays = 90): DailyCount[] {
  const rows = store.db
    .prepare(
      `SELECT substr(timestamp, 1, 10) AS day, COUNT(*) AS count FROM events
       WHERE team_id = ? AND (? IS NULL OR event = ?) GROUP BY day ORDER BY day`,
    )
    .all(teamId, event, event) as DailyCount[];
  return fillDays(rows, maxDays);
}
