/** verify's pure parts: UTC days, durations, windows, the comparison, its order and its summary line. */
import { describe, expect, it } from 'vitest';
import { parseDurationMs } from '../../src/util/parse-duration.js';
import { dayWindows } from '../../src/verify/day-windows.js';
import { rowKey } from '../../src/verify/landed-counts.js';
import { dayFromNumber, dayNumber, dayOf, parseDay } from '../../src/verify/utc-day.js';
import { compareRows, orderRows, perDay, summarize } from '../../src/verify/verify-table.js';
import { summaryLine } from '../../src/verify/verify-wording.js';

const D = 86_400_000;
const n = (day: string) => dayNumber(day);

describe('UTC days', () => {
  it.each<[number, string]>([
    [Date.UTC(2025, 0, 2, 23, 59, 59, 999), '2025-01-02'],
    [Date.UTC(2025, 0, 3), '2025-01-03'],
    [-1, '1969-12-31'],
    [-D, '1969-12-31'],
    [-D - 1, '1969-12-30'],
  ])('dayOf(%d) = %s', (ms, day) => {
    expect(dayOf(ms)).toBe(day);
    expect(dayFromNumber(dayNumber(day))).toBe(day);
  });

  it.each<[string, string | undefined]>([
    ['2024-02-29', '2024-02-29'],
    [' 2025-01-31 ', '2025-01-31'],
    ['2025-02-29', undefined],
    ['2025-13-01', undefined],
    ['2025-1-1', undefined],
    ['2025-01-01T00:00:00Z', undefined],
    ['yesterday', undefined],
  ])('parseDay(%j) = %s', (text, day) => {
    expect(parseDay(text)).toBe(day);
  });
});

describe('parseDurationMs', () => {
  it.each<[string, number | undefined]>([
    ['10m', 600_000],
    ['90s', 90_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['45', 45_000],
    ['0', 0],
    ['10 m', undefined],
    ['m', undefined],
    ['-5m', undefined],
    ['1d', undefined],
  ])('%j -> %s', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });
});

describe('dayWindows', () => {
  const days = [
    { day: 10, events: 40 },
    { day: 11, events: 70 },
    { day: 14, events: 20 },
    { day: 15, events: 500 },
    { day: 16, events: 10 },
  ];

  it('groups whole days up to the bound, without gaps between windows', () => {
    expect(dayWindows(days, 100)).toEqual([
      { fromMs: 10 * D, toMs: 11 * D },
      { fromMs: 11 * D, toMs: 15 * D },
      { fromMs: 15 * D, toMs: 16 * D },
      { fromMs: 16 * D, toMs: 17 * D },
    ]);
  });

  it('is one window when everything fits, none when nothing is staged', () => {
    expect(dayWindows(days, 10_000)).toEqual([{ fromMs: 10 * D, toMs: 17 * D }]);
    expect(dayWindows([], 100)).toEqual([]);
  });
});

describe('the comparison', () => {
  const counts = [
    { day: n('2025-01-01'), staged: 10, delivered: 10, deadLetters: 0 },
    { day: n('2025-01-02'), staged: 12, delivered: 11, deadLetters: 1 },
    { day: n('2025-01-03'), staged: 5, delivered: 4, deadLetters: 0 },
  ];
  const landed = new Map([
    [rowKey(n('2025-01-01')), 10],
    [rowKey(n('2025-01-02')), 8],
    [rowKey(n('2025-01-04')), 2],
  ]);
  const rows = orderRows(compareRows(counts, landed));

  it('puts the short days first, with their shortfall; landed on unstaged days counts nothing missing', () => {
    expect(rows).toEqual([
      { day: '2025-01-02', staged: 12, delivered: 11, deadLetters: 1, landed: 8, missing: 3 },
      { day: '2025-01-03', staged: 5, delivered: 4, deadLetters: 0, landed: 0, missing: 4 },
      { day: '2025-01-01', staged: 10, delivered: 10, deadLetters: 0, landed: 10, missing: 0 },
      { day: '2025-01-04', staged: 0, delivered: 0, deadLetters: 0, landed: 2, missing: 0 },
    ]);
  });

  it('sums up and words it', () => {
    const summary = summarize(rows);
    expect(summary).toEqual({ days: 4, shortDays: 2, missing: 7, complete: false, totals: { staged: 27, delivered: 25, deadLetters: 1, landed: 20, pending: 1 } });
    expect(summaryLine(summary)).toBe('2 days short by 7 events: 18 of 25 delivered events landed');
    const whole = summarize(orderRows(compareRows(counts.slice(0, 1), new Map([[rowKey(n('2025-01-01')), 10]]))));
    expect(summaryLine(whole)).toBe('1 day complete: 10 of 10 delivered events landed');
    expect(summaryLine(summarize([]))).toBe('nothing staged in this range: nothing to verify');
  });

  it('by event: a day is short once, whatever the number of its events short; the chart sums events per day', () => {
    const byEvent = orderRows(
      compareRows(
        [
          { day: n('2025-01-01'), event: 'a', staged: 3, delivered: 3, deadLetters: 0 },
          { day: n('2025-01-01'), event: 'b\tc', staged: 2, delivered: 2, deadLetters: 0 },
        ],
        new Map([
          [rowKey(n('2025-01-01'), 'a'), 1],
          [rowKey(n('2025-01-01'), 'b\tc'), 1],
        ]),
      ),
    );
    expect(byEvent.map((r) => [r.event, r.missing])).toEqual([
      ['a', 2],
      ['b\tc', 1],
    ]);
    expect(summarize(byEvent)).toMatchObject({ days: 1, shortDays: 1, missing: 3 });
    expect(perDay(byEvent)).toEqual([{ day: '2025-01-01', staged: 5, delivered: 5, deadLetters: 0, landed: 2, missing: 3 }]);
  });
});
