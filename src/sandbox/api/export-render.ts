/**
 * Renders an export from the sandbox's data: image/png a bar chart of events per day,
 * text/csv and application/json the numbers behind it. Other formats fail the way an
 * unavailable renderer does: with an `exception` on the export.
 */
import type { SandboxStore } from '../sandbox-store.js';
import { renderBarChart, type DailyCount } from './chart/bar-chart.js';
import { encodePng } from './chart/png-encoder.js';
import type { ExportRow } from './export-store.js';
import { eventsPerDay, renderSpec, type RenderSpec } from './sandbox-insights.js';

export type RenderOutcome = { content: Buffer } | { exception: string };

export const RENDERED_FORMATS: readonly string[] = ['image/png', 'text/csv', 'application/json'];

function csvCell(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Pure: the rendered bytes for a format, or why it cannot be rendered. */
export function renderSeries(format: string, spec: RenderSpec, series: readonly DailyCount[]): RenderOutcome {
  const total = series.reduce((sum, p) => sum + p.count, 0);
  switch (format) {
    case 'image/png': {
      const subtitle = series.length === 0 ? 'no events' : `${total.toLocaleString('en-US')} events, ${series[0]!.day} to ${series[series.length - 1]!.day} (UTC)`;
      const raster = renderBarChart(series, { title: spec.title, subtitle });
      return { content: encodePng(raster.width, raster.height, raster.pixels) };
    }
    case 'text/csv':
      return { content: Buffer.from(['day,' + csvCell(spec.event ?? 'events'), ...series.map((p) => `${p.day},${p.count}`)].join('\n') + '\n') };
    case 'application/json':
      return { content: Buffer.from(JSON.stringify({ title: spec.title, event: spec.event, total, days: series }, null, 2) + '\n') };
    default:
      return { exception: `The sandbox renders ${RENDERED_FORMATS.join(', ')}; ${format} is not available here.` };
  }
}

export function renderExport(store: SandboxStore, row: ExportRow): RenderOutcome {
  const context = row.export_context === null ? null : (JSON.parse(row.export_context) as Record<string, unknown>);
  const spec = renderSpec({ dashboard: row.dashboard, insight: row.insight, context });
  return renderSeries(row.export_format, spec, eventsPerDay(store, row.team_id, spec.event));
}
