/**
 * The report's chart as inline SVG: one column per UTC day of the whole range, staged as grey
 * bars, delivered and landed as lines, short days marked in red across the full height so a
 * single one shows among a thousand. Pure.
 */
import { count } from '../../util/format.js';
import { dayFromNumber, dayNumber } from '../utc-day.js';
import type { VerifyRow } from '../verify-table.js';
import { escapeHtml } from './html-escape.js';

const WIDTH = 960;
const HEIGHT = 300;
const MARGIN = { left: 64, right: 16, top: 12, bottom: 36 };
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;

/** A round axis maximum at or above `max`: 1, 2 or 5 times a power of ten. */
export function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= max)!;
}

interface Scale {
  first: number;
  days: number;
  yMax: number;
}

const x = (s: Scale, day: number): number => MARGIN.left + ((day - s.first) * PLOT_W) / s.days;
const y = (s: Scale, value: number): number => MARGIN.top + PLOT_H - (value * PLOT_H) / s.yMax;
const fixed = (n: number): string => n.toFixed(1);

function yAxis(s: Scale): string {
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * s.yMax);
  return ticks
    .map((v) => {
      const at = fixed(y(s, v));
      return `<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${at}" y2="${at}"/><text class="tick" x="${MARGIN.left - 6}" y="${at}" text-anchor="end" dominant-baseline="middle">${count(Math.round(v))}</text>`;
    })
    .join('');
}

function xAxis(s: Scale): string {
  const step = Math.max(1, Math.ceil(s.days / 8));
  const labels: string[] = [];
  for (let d = 0; d < s.days; d += step) {
    const day = s.first + d;
    const at = fixed(x(s, day) + PLOT_W / s.days / 2);
    labels.push(`<text class="tick" x="${at}" y="${HEIGHT - MARGIN.bottom + 18}" text-anchor="middle">${dayFromNumber(day)}</text>`);
  }
  return `<line class="axis" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${MARGIN.top + PLOT_H}" y2="${MARGIN.top + PLOT_H}"/>${labels.join('')}`;
}

/** Every day of the range, days with nothing staged as zeros. */
function dense(s: Scale, rows: readonly VerifyRow[]): VerifyRow[] {
  const byDay = new Map(rows.map((r) => [dayNumber(r.day), r]));
  return Array.from({ length: s.days }, (_, i) => byDay.get(s.first + i) ?? { day: dayFromNumber(s.first + i), staged: 0, delivered: 0, deadLetters: 0, landed: 0, missing: 0 });
}

/** A step outline of one figure: flat across each day's column. */
function steps(s: Scale, days: readonly VerifyRow[], pick: (r: VerifyRow) => number): string[] {
  const w = PLOT_W / s.days;
  return days.flatMap((r, i) => {
    const left = MARGIN.left + i * w;
    const at = fixed(y(s, pick(r)));
    return [`${fixed(left)},${at}`, `${fixed(left + w)},${at}`];
  });
}

function area(s: Scale, days: readonly VerifyRow[], pick: (r: VerifyRow) => number, cls: string): string {
  const base = fixed(MARGIN.top + PLOT_H);
  return `<polygon class="${cls}" points="${fixed(MARGIN.left)},${base} ${steps(s, days, pick).join(' ')} ${fixed(WIDTH - MARGIN.right)},${base}"/>`;
}

function line(s: Scale, days: readonly VerifyRow[], pick: (r: VerifyRow) => number, cls: string): string {
  return `<polyline class="${cls}" points="${steps(s, days, pick).join(' ')}"/>`;
}

/** Short days across the full height, at least 3 px wide so one shows among a thousand. */
function shortBands(s: Scale, rows: readonly VerifyRow[]): string {
  const w = PLOT_W / s.days;
  const mark = Math.max(w, 3);
  return rows
    .filter((r) => r.missing > 0)
    .map((r) => `<rect class="short" x="${fixed(x(s, dayNumber(r.day)) + w / 2 - mark / 2)}" y="${MARGIN.top}" width="${fixed(mark)}" height="${PLOT_H}"/>`)
    .join('');
}

/** Invisible full-height columns whose titles show a day's figures on hover. */
function hovers(s: Scale, rows: readonly VerifyRow[]): string {
  const w = fixed(PLOT_W / s.days);
  return rows
    .map((r) => {
      const title = `${r.day}: staged ${count(r.staged)}, delivered ${count(r.delivered)}, landed ${count(r.landed)}${r.missing > 0 ? `, missing ${count(r.missing)}` : ''}`;
      return `<rect class="hover" x="${fixed(x(s, dayNumber(r.day)))}" y="${MARGIN.top}" width="${w}" height="${PLOT_H}"><title>${escapeHtml(title)}</title></rect>`;
    })
    .join('');
}

/** The chart of `days` (one row per day, in day order); days between them are drawn empty. */
export function dayChart(days: readonly VerifyRow[]): string {
  if (days.length === 0) return '<p class="empty">No staged days in this range.</p>';
  const first = dayNumber(days[0]!.day);
  const s: Scale = { first, days: dayNumber(days.at(-1)!.day) - first + 1, yMax: niceMax(Math.max(...days.map((r) => Math.max(r.staged, r.landed, r.delivered)))) };
  const markers = days
    .filter((r) => r.missing > 0)
    .map((r) => `<circle class="missing" cx="${fixed(x(s, dayNumber(r.day)) + PLOT_W / s.days / 2)}" cy="${fixed(y(s, r.landed))}" r="3"/>`)
    .join('');
  const all = dense(s, days);
  return [
    `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="staged, delivered and landed events per UTC day">`,
    yAxis(s),
    area(s, all, (r) => r.staged, 'staged'),
    area(s, all, (r) => r.landed, 'landed'),
    line(s, all, (r) => r.delivered, 'delivered'),
    shortBands(s, days),
    markers,
    xAxis(s),
    hovers(s, days),
    '</svg>',
  ].join('');
}
