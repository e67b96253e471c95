/**
 * Draws a daily series as a bar chart: title, y-axis grid with counts, a bar per day, dates
 * under the bars. Pure: returns a raster for the PNG encoder.
 */
import { GLYPH_ADVANCE, GLYPH_HEIGHT, textWidth } from './pixel-font.js';
import { Raster, type Rgb } from './raster.js';

export interface DailyCount {
  /** YYYY-MM-DD */
  day: string;
  count: number;
}

export interface BarChartOptions {
  title: string;
  subtitle?: string;
  /** A bar's label from its day. Default MM-DD. */
  label?: (day: string) => string;
  /** Device pixels. Default 800 x 400. */
  width?: number;
  height?: number;
}

const WHITE: Rgb = [255, 255, 255];
const INK: Rgb = [35, 37, 45];
const MUTED: Rgb = [110, 114, 128];
const GRID: Rgb = [228, 230, 236];
const BAR: Rgb = [29, 74, 255];

/**
 * A round axis step giving about `ticks` intervals up to `max`: 1, 2 or 5 times a power of
 * ten, or 2.5 times one from 25 up (counts never get fractional steps).
 */
export function axisStep(max: number, ticks = 4): number {
  if (max <= ticks) return 1;
  const raw = max / ticks;
  const power = 10 ** Math.floor(Math.log10(raw));
  const multiples = power >= 10 ? [1, 2, 2.5, 5, 10] : [1, 2, 5, 10];
  return multiples.map((m) => m * power).find((s) => s >= raw)!;
}

interface Plot {
  left: number;
  top: number;
  width: number;
  height: number;
}

function drawAxis(raster: Raster, plot: Plot, max: number): number {
  const step = axisStep(max);
  const top = Math.max(step, Math.ceil(max / step) * step);
  for (let value = 0; value <= top; value += step) {
    const y = plot.top + plot.height - (value / top) * plot.height;
    raster.fillRect(plot.left, y, plot.width, 1, value === 0 ? MUTED : GRID);
    const label = value.toLocaleString('en-US');
    raster.drawText(plot.left - 8 - textWidth(label, 1), y - Math.floor(GLYPH_HEIGHT / 2), label, 1, MUTED);
  }
  return top;
}

function drawBars(raster: Raster, plot: Plot, points: readonly DailyCount[], top: number, labelOf: (day: string) => string): void {
  const slot = plot.width / points.length;
  const widest = points.reduce((w, p) => Math.max(w, textWidth(labelOf(p.day), 1)), 0);
  const labelEvery = Math.max(1, Math.ceil((widest + 10) / slot));
  points.forEach((point, i) => {
    const h = (point.count / top) * plot.height;
    const x = plot.left + i * slot + slot * 0.15;
    raster.fillRect(x, plot.top + plot.height - h, Math.max(1, slot * 0.7), h, BAR);
    if (i % labelEvery === 0) {
      const label = labelOf(point.day);
      const center = plot.left + i * slot + slot / 2;
      raster.drawText(center - textWidth(label, 1) / 2, plot.top + plot.height + 8, label, 1, MUTED);
    }
  });
}

/** Characters that fit in a width at a scale, so long titles are cut rather than clipped mid-glyph. */
function charsThatFit(widthPx: number, scale: number): number {
  return Math.floor((widthPx + scale) / (GLYPH_ADVANCE * scale));
}

export function renderBarChart(points: readonly DailyCount[], options: BarChartOptions): Raster {
  const width = options.width ?? 800;
  const height = options.height ?? 400;
  const raster = new Raster(width, height, WHITE);
  raster.drawText(24, 20, options.title.slice(0, charsThatFit(width - 48, 2)), 2, INK);
  if (options.subtitle) raster.drawText(24, 20 + GLYPH_HEIGHT * 2 + 8, options.subtitle, 1, MUTED);
  const plot: Plot = { left: 72, top: 70, width: width - 72 - 24, height: height - 70 - 36 };
  const max = points.reduce((m, p) => Math.max(m, p.count), 0);
  const top = drawAxis(raster, plot, max);
  if (points.length === 0) {
    const text = 'NO EVENTS YET';
    raster.drawText(plot.left + (plot.width - textWidth(text, 2)) / 2, plot.top + plot.height / 2 - GLYPH_HEIGHT, text, 2, MUTED);
  } else {
    drawBars(raster, plot, points, top, options.label ?? ((day) => day.slice(5)));
  }
  return raster;
}
