import { crc32, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { axisStep, renderBarChart } from '../../src/sandbox/api/chart/bar-chart.js';
import { encodePng } from '../../src/sandbox/api/chart/png-encoder.js';
import { exportFilename, slugify } from '../../src/sandbox/api/export-naming.js';
import { renderSeries } from '../../src/sandbox/api/export-render.js';
import { fillDays, renderSpec, seriesOf } from '../../src/sandbox/api/sandbox-insights.js';

/** Reads a PNG's chunks back, checking each CRC: a real decoder's first steps. */
function readPng(png: Buffer): { width: number; height: number; pixels: Buffer; types: string[] } {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const types: string[] = [];
  let header: Buffer = Buffer.alloc(0);
  const data: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('ascii');
    const body = png.subarray(at + 8, at + 8 + length);
    expect(png.readUInt32BE(at + 8 + length)).toBe(crc32(png.subarray(at + 4, at + 8 + length)) >>> 0);
    types.push(type);
    if (type === 'IHDR') header = body;
    if (type === 'IDAT') data.push(body);
    at += 12 + length;
  }
  return { width: header.readUInt32BE(0), height: header.readUInt32BE(4), pixels: inflateSync(Buffer.concat(data)), types };
}

describe('encodePng', () => {
  it('writes a valid 8-bit RGB image whose pixels read back', () => {
    const rgb = new Uint8Array([255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9]);
    const png = encodePng(2, 2, rgb);
    const read = readPng(png);
    expect(read.types).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect([read.width, read.height]).toEqual([2, 2]);
    // Each row: filter byte 0, then the pixels.
    expect([...read.pixels]).toEqual([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 9, 9, 9]);
  });

  it('refuses a buffer of the wrong size', () => expect(() => encodePng(2, 2, new Uint8Array(3))).toThrow(/expected 12 bytes/));
});

describe('bar chart', () => {
  it.each([
    [0, 1],
    [4, 1],
    [12, 5],
    [40, 10],
    [9, 5],
    [73, 20],
    [91, 25],
    [1234, 500],
  ])('axisStep(%i) = %i', (max, step) => expect(axisStep(max)).toBe(step));

  it('draws bars in the bar colour', () => {
    const raster = renderBarChart([{ day: '2025-09-01', count: 5 }], { title: 'T', width: 200, height: 120 });
    const blue = [];
    for (let i = 0; i < raster.pixels.length; i += 3) if (raster.pixels[i] === 29 && raster.pixels[i + 2] === 255) blue.push(i);
    expect(blue.length).toBeGreaterThan(100);
  });
});

describe('export naming', () => {
  it.each([
    ['Events per day', 'events-per-day'],
    ['  Café: "Pro" signups!! ', 'cafe-pro-signups'],
    ['$pageview per day', 'pageview-per-day'],
    ['東京', 'export'],
    ['x'.repeat(80), 'x'.repeat(50)],
  ])('slugify(%j) = %s', (text, slug) => expect(slugify(text)).toBe(slug));

  it.each([
    ['image/png', 'export-events-per-day-2025-10-14-093005.png'],
    ['text/csv', 'export-events-per-day-2025-10-14-093005.csv'],
    ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'export-events-per-day-2025-10-14-093005.xlsx'],
  ] as const)('%s -> %s', (format, name) => expect(exportFilename('Events per day', new Date('2025-10-14T09:30:05.123Z'), format)).toBe(name));
});

describe('what an export shows', () => {
  it.each([
    [
      { dashboard: 1, insight: null, context: null },
      { title: 'Migration overview', event: null },
    ],
    [
      { dashboard: null, insight: 2, context: null },
      { title: 'Pageviews per day', event: '$pageview' },
    ],
    [
      { dashboard: null, insight: null, context: { event: 'signed_up' } },
      { title: 'signed_up per day', event: 'signed_up' },
    ],
    [
      { dashboard: null, insight: null, context: { title: 'Signups', filename: 'f', event: 'signed_up' } },
      { title: 'Signups', event: 'signed_up' },
    ],
    [
      { dashboard: null, insight: null, context: {} },
      { title: 'Events per day', event: null },
    ],
  ])('%j', (source, spec) => expect(renderSpec(source)).toEqual(spec));

  it('fills days without events and keeps the most recent days', () => {
    const counts = [
      { day: '2025-02-27', count: 2 },
      { day: '2025-03-02', count: 1 },
    ];
    expect(fillDays(counts, 90).map((d) => `${d.day}:${d.count}`)).toEqual(['2025-02-27:2', '2025-02-28:0', '2025-03-01:0', '2025-03-02:1']);
    expect(fillDays(counts, 2).map((d) => d.day)).toEqual(['2025-03-01', '2025-03-02']);
    expect(fillDays([], 5)).toEqual([]);
  });

  it('renders the numbers as CSV and JSON, and refuses formats it cannot draw', () => {
    const points = [
      { day: '2025-09-01', count: 3 },
      { day: '2025-09-02', count: 0 },
    ];
    const series = { interval: 'day' as const, points };
    const spec = { title: 'Events per day', event: null };
    expect(renderSeries('text/csv', spec, series)).toEqual({ content: Buffer.from('day,events\n2025-09-01,3\n2025-09-02,0\n') });
    expect(renderSeries('text/csv', { title: 'x', event: 'a,b' }, series)).toMatchObject({ content: Buffer.from('day,"a,b"\n2025-09-01,3\n2025-09-02,0\n') });
    expect(renderSeries('text/csv', spec, { interval: 'week', points })).toMatchObject({ content: Buffer.from('week,events\n2025-09-01,3\n2025-09-02,0\n') });
    expect(JSON.parse((renderSeries('application/json', spec, series) as { content: Buffer }).content.toString())).toMatchObject({ total: 3, interval: 'day', points });
    expect(renderSeries('video/mp4', spec, series)).toEqual({ exception: expect.stringMatching(/video\/mp4 is not available here/) });
    const png = readPng((renderSeries('image/png', spec, { interval: 'day', points: [] }) as { content: Buffer }).content);
    expect([png.width, png.height]).toEqual([800, 400]);
  });

  const days = (from: string, count: number, every = 1) =>
    Array.from({ length: count }, (_, i) => ({ day: new Date(Date.parse(`${from}T00:00:00Z`) + i * every * 86_400_000).toISOString().slice(0, 10), count: 1 }));

  it.each<[string, Array<{ day: string; count: number }>, string, number, string, string]>([
    [
      'a few days: daily bars, gaps filled',
      [
        { day: '2025-02-27', count: 2 },
        { day: '2025-03-02', count: 1 },
      ],
      'day',
      4,
      '2025-02-27',
      '2025-03-02',
    ],
    ['120 days still fit daily', days('2020-01-01', 120), 'day', 120, '2020-01-01', '2020-04-29'],
    ['two years of old events: weekly bars from the first Monday', days('2019-01-02', 365, 2), 'week', 105, '2018-12-31', '2020-12-28'],
    ['ten years: monthly bars over the whole range', days('2010-01-15', 360, 10), 'month', 119, '2010-01-01', '2019-11-01'],
    ['more than 120 months: the newest 120', days('2000-01-01', 400, 20), 'month', 120, '2011-12-01', '2021-11-01'],
  ])('charts the range that holds the events: %s', (_name, counts, interval, bars, first, last) => {
    const series = seriesOf(counts);
    expect(series.interval).toBe(interval);
    expect(series.points).toHaveLength(bars);
    expect([series.points[0]!.day, series.points[bars - 1]!.day]).toEqual([first, last]);
    if (series.points.length < 120) expect(series.points.reduce((sum, p) => sum + p.count, 0)).toBe(counts.reduce((sum, c) => sum + c.count, 0));
  });
});
