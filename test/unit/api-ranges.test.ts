/** Days and hours of the source APIs: parsing, windows capped at what has settled, gaps, cuts, halves and sizing. Table-driven. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { cut, dayWindow, formatDay, formatHour, gaps, halves, hoursForTarget, hourWindow, parseDay, parseHour } from '../../src/source-apis/api-ranges.js';

const NOW = Date.UTC(2026, 0, 2, 3, 30); // 2026-01-02T03:30Z
const day = (text: string) => parseDay(text)!;
const hour = (text: string) => parseHour(text, 'start')!;

describe('days and hours', () => {
  it.each<[string, string | undefined]>([
    ['2024-03-05', '2024-03-05'],
    [' 2024-02-29 ', '2024-02-29'],
    ['2023-02-29', undefined],
    ['2024-13-01', undefined],
    ['20240305', undefined],
    ['2024-03-05T00', undefined],
  ])('day %j', (text, expected) => {
    const parsed = parseDay(text);
    expect(parsed === undefined ? undefined : formatDay(parsed)).toBe(expected);
  });

  it.each<[string, 'start' | 'end', string | undefined]>([
    ['2024-03-05T07', 'start', '20240305T07'],
    ['20240305T07', 'end', '20240305T07'],
    ['2024-03-05', 'start', '20240305T00'],
    ['2024-03-05', 'end', '20240305T23'],
    ['2024-03-05T24', 'start', undefined],
    ['2024-03-05T7', 'start', undefined],
    ['2024-02-30T01', 'start', undefined],
  ])('hour %j as %s', (text, edge, expected) => {
    const parsed = parseHour(text, edge);
    expect(parsed === undefined ? undefined : formatHour(parsed)).toBe(expected);
  });
});

describe('windows', () => {
  it.each<[string, string, { first: string; last: string; cappedFrom?: string }]>([
    ['2025-01-01', '2025-12-31', { first: '2025-01-01', last: '2025-12-31' }],
    // Now is 2026-01-02 03:30 UTC: 2025-12-31 ended 27.5 hours ago in UTC (15.5 in UTC-12).
    ['2025-12-01', '2026-01-01', { first: '2025-12-01', last: '2025-12-31', cappedFrom: '2026-01-01' }],
    ['2025-12-31', '2099-01-01', { first: '2025-12-31', last: '2025-12-31', cappedFrom: '2099-01-01' }],
  ])('days %s to %s', (start, end, expected) => {
    const window = dayWindow(start, end, NOW);
    expect({ ...window, first: formatDay(window.first), last: formatDay(window.last) }).toEqual(expected);
  });

  it('caps hours at the last hour that ended a day ago', () => {
    const window = hourWindow('2025-12-31T00', '2026-01-02T03', NOW);
    expect([formatHour(window.first), formatHour(window.last), window.cappedFrom]).toEqual(['20251231T00', '20260101T02', '2026-01-02T03']);
  });

  it.each<[string | undefined, string | undefined, string]>([
    [undefined, '2025-01-01', '--start and --end are required'],
    ['2025-01-01', undefined, '--start and --end are required'],
    ['2025/01/01', '2025-01-02', '--start 2025/01/01: not a day; expected YYYY-MM-DD'],
    ['2025-01-01', 'yesterday', '--end yesterday: not a day'],
    ['2025-02-01', '2025-01-31', '--end 2025-01-31 is before --start 2025-02-01'],
    ['2026-01-01', '2026-01-05', '--start 2026-01-01: nothing to fetch yet; the last day settled long enough to be fetched is 2025-12-31'],
  ])('days %j to %j: %s', (start, end, message) => {
    expect(() => dayWindow(start, end, NOW)).toThrow(UsageError);
    expect(() => dayWindow(start, end, NOW)).toThrow(message);
  });

  it('refuses an hour that is not one', () => {
    expect(() => hourWindow('2025-01-01T25', '2025-01-02', NOW)).toThrow('--start 2025-01-01T25: not an hour; expected YYYY-MM-DDTHH');
  });
});

describe('cutting', () => {
  it.each<[string, [string, string][], [string, string][]]>([
    ['nothing covered', [], [['2024-03-01', '2024-03-10']]],
    [
      'middle covered',
      [['2024-03-04', '2024-03-05']],
      [
        ['2024-03-01', '2024-03-03'],
        ['2024-03-06', '2024-03-10'],
      ],
    ],
    [
      'edges and outside covered',
      [
        ['2024-02-20', '2024-03-01'],
        ['2024-03-10', '2024-03-20'],
      ],
      [['2024-03-02', '2024-03-09']],
    ],
    [
      'all covered, overlapping',
      [
        ['2024-03-01', '2024-03-06'],
        ['2024-03-05', '2024-03-10'],
      ],
      [],
    ],
  ])('gaps: %s', (_name, covered, expected) => {
    const spans = covered.map(([a, b]) => ({ first: day(a), last: day(b) }));
    expect(gaps({ first: day('2024-03-01'), last: day('2024-03-10') }, spans).map((g) => [formatDay(g.first), formatDay(g.last)])).toEqual(expected);
  });

  it('cuts a gap into ranges of at most a size, and halves a range', () => {
    const gap = { first: hour('20240301T00'), last: hour('20240302T05') };
    expect(cut(gap, 12).map((s) => `${formatHour(s.first)}-${formatHour(s.last)}`)).toEqual(['20240301T00-20240301T11', '20240301T12-20240301T23', '20240302T00-20240302T05']);
    expect(halves({ first: 0, last: 4 })).toEqual([
      { first: 0, last: 2 },
      { first: 3, last: 4 },
    ]);
    expect(halves({ first: 7, last: 8 })).toEqual([
      { first: 7, last: 7 },
      { first: 8, last: 8 },
    ]);
  });

  it.each<[number, number]>([
    [0, 744],
    [1024 ** 2, 744],
    [10 * 1024 ** 2, 102],
    [2 * 1024 ** 3, 1],
  ])('%i bytes an hour: %i hours a request', (bytesPerHour, hours) => {
    expect(hoursForTarget(bytesPerHour, 1024 ** 3, 744)).toBe(hours);
  });
});
