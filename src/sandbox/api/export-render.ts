/**
 * Renders an export from the sandbox's data: image/png a bar chart of events per day (or
 * week, or month, over a long range),
 * text/csv and application/json the numbers behind it. Other formats fail the way an
 * unavailable renderer does: with an `exception` on the export.
 */
import type { SandboxStore } from '../sandbox-store.js';
import { renderBarChart } from './chart/bar-chart.js';
import { encodePng } from './chart/png-encoder.js';
import type { ExportRow } from './export-store.js';
import { eventSeries, renderSpec, type RenderSpec, type Series } from './sandbox-insights.js';

export type RenderOutcome = { content: Buffer } | { exception: string };

export const RENDERED_FORMATS: readonly string[] = ['image/png', 'text/csv', 'application/json'];

function csvCell(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const LABELS: Record<Series['interval'], (day: string) => string> = { day: (d) => d.slice(5), week: (d) => d, month: (d) => d.slice(0, 7) };

function subtitle({ interval, points }: Series, total: number): string {
  if (points.length === 0) return 'no events';
  const by = interval === 'day' ? '' : `, by ${interval}`;
  return `${total.toLocaleString('en-US')} events, ${points[0]!.day} to ${points[points.length - 1]!.day} (UTC)${by}`;
}

/** Pure: the rendered bytes for a format, or why it cannot be rendered. */
export function renderSeries(format: string, spec: RenderSpec, series: Series): RenderOutcome {
  const { interval, points } = series;
  const total = points.reduce((sum, p) => sum + p.count, 0);
  switch (format) {
    case 'image/png': {
      const raster = renderBarChart(points, { title: spec.title, subtitle: subtitle(series, total), label: LABELS[interval] });
      return { content: encodePng(raster.width, raster.height, raster.pixels) };
    }
    case 'text/csv':
      return { content: Buffer.from([`${interval},` + csvCell(spec.event ?? 'events'), ...points.map((p) => `${p.day},${p.count}`)].join('\n') + '\n') };
    case 'application/json':
      return { content: Buffer.from(JSON.stringify({ title: spec.title, event: spec.event, interval, total, points }, null, 2) + '\n') };
    default:
      return { exception: `The sandbox renders ${RENDERED_FORMATS.join(', ')}; ${format} is not available here.` };
  }
}

export function renderExport(store: SandboxStore, row: ExportRow): RenderOutcome {
  const context = row.export_context === null ? null : (JSON.parse(row.export_context) as Record<string, unknown>);
  const spec = renderSpec({ dashboard: row.dashboard, insight: row.insight, context });
  return renderSeries(row.export_format, spec, eventSeries(store, row.team_id, spec.event));
}
