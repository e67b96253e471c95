/**
 * The range ledger's plan of a window, on a real staging file: every day or hour of the window
 * not fetched yet ends in a range that lies wholly inside the window, whatever an earlier run
 * left (failed, pending, done ranges straddling an edge); nothing fetched is planned again.
 * Table-driven.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fetchedIn, nextRange, planWindow } from '../../src/stage-sources/api-plan.js';
import { cutAtWindow, parseHour, type Span } from '../../src/source-apis/api-ranges.js';
import { findApiSource } from '../../src/source-apis/api-sources.js';
import { addPendingRanges, markDone, markFailed, rangesOf, type RangeStatus } from '../../src/staging/source-ranges.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const SOURCE = 'amplitude-api:abc';
const NOW = '2026-01-01T00:00:00.000Z';
const AMPLITUDE = findApiSource('amplitude-api');
const MIXPANEL = findApiSource('mixpanel-api');

/** Hours of 2025-09-01 and 2025-09-02 as `d1T05` / `d2T23`. */
function h(name: string): number {
  const [day, hour] = name.split('T');
  return parseHour(`2025-09-0${day!.slice(1)}T${hour}`, 'start')!;
}
const span = (first: string, last: string): Span => ({ first: h(first), last: h(last) });
const bounds = (s: Span) => AMPLITUDE.bounds(s);

interface Row {
  range: [string, string];
  status: RangeStatus;
}

/** A staging file whose ledger holds `rows` (failed with an error, done with 10 rows). */
function ledger(rows: readonly Row[]): StagingStore {
  const store = StagingStore.open(join(tempDir(), 'migration.db'));
  addPendingRanges(
    store,
    SOURCE,
    rows.map((r) => bounds(span(...r.range))),
    NOW,
  );
  for (const row of rangesOf(store, SOURCE)) {
    const wanted = rows.find((r) => bounds(span(...r.range)).start === row.start)!;
    if (wanted.status === 'failed') markFailed(store, row.id, 'bad CRC in entry 1', NOW);
    if (wanted.status === 'done') markDone(store, row.id, { bytes: 100, rowsRead: 10, rowsStaged: 10, rowsRejected: 0 }, {}, NOW);
  }
  return store;
}

/** The ledger as `[start, end, status]`, in hours named as `h` takes them. */
function shape(store: StagingStore): Array<[string, string, string]> {
  const name = (text: string) => `d${Number(text.slice(6, 8))}T${text.slice(9, 11)}`;
  return rangesOf(store, SOURCE).map((r) => [name(r.start), name(r.end), r.status]);
}

describe('cutAtWindow', () => {
  it.each<[string, Span, Span, Span[]]>([
    ['inside', { first: 3, last: 5 }, { first: 0, last: 9 }, [{ first: 3, last: 5 }]],
    ['outside', { first: 12, last: 15 }, { first: 0, last: 9 }, [{ first: 12, last: 15 }]],
    [
      'over the start',
      { first: 0, last: 23 },
      { first: 12, last: 40 },
      [
        { first: 0, last: 11 },
        { first: 12, last: 23 },
      ],
    ],
    [
      'over the end',
      { first: 0, last: 23 },
      { first: 0, last: 5 },
      [
        { first: 0, last: 5 },
        { first: 6, last: 23 },
      ],
    ],
    [
      'over both',
      { first: 0, last: 23 },
      { first: 6, last: 8 },
      [
        { first: 0, last: 5 },
        { first: 6, last: 8 },
        { first: 9, last: 23 },
      ],
    ],
    ['equal', { first: 6, last: 8 }, { first: 6, last: 8 }, [{ first: 6, last: 8 }]],
  ])('%s', (_name, range, window, expected) => {
    expect(cutAtWindow(range, window)).toEqual(expected);
  });
});

describe('planWindow (hours)', () => {
  it.each<[string, Row[], [string, string], Array<[string, string, string]>, [string, string] | undefined]>([
    [
      'a failed range the window starts inside: the part inside is retried, the part before stays failed',
      [{ range: ['d1T00', 'd1T23'], status: 'failed' }],
      ['d1T12', 'd2T23'],
      [
        ['d1T00', 'd1T11', 'failed'],
        ['d1T12', 'd1T23', 'failed'],
        ['d2T00', 'd2T23', 'pending'],
      ],
      ['d1T12', 'd1T23'],
    ],
    [
      'a failed range the window ends inside',
      [{ range: ['d1T00', 'd1T23'], status: 'failed' }],
      ['d1T00', 'd1T05'],
      [
        ['d1T00', 'd1T05', 'failed'],
        ['d1T06', 'd1T23', 'failed'],
      ],
      ['d1T00', 'd1T05'],
    ],
    [
      'a failed range holding the whole window',
      [{ range: ['d1T00', 'd2T23'], status: 'failed' }],
      ['d1T10', 'd1T11'],
      [
        ['d1T00', 'd1T09', 'failed'],
        ['d1T10', 'd1T11', 'failed'],
        ['d1T12', 'd2T23', 'failed'],
      ],
      ['d1T10', 'd1T11'],
    ],
    [
      'a pending half of a split over the start: cut too, the part inside fetched',
      [{ range: ['d1T00', 'd1T23'], status: 'pending' }],
      ['d1T20', 'd1T23'],
      [
        ['d1T00', 'd1T19', 'pending'],
        ['d1T20', 'd1T23', 'pending'],
      ],
      ['d1T20', 'd1T23'],
    ],
    [
      'a done range over the start: its hours are not fetched again',
      [{ range: ['d1T00', 'd1T23'], status: 'done' }],
      ['d1T12', 'd2T23'],
      [
        ['d1T00', 'd1T23', 'done'],
        ['d2T00', 'd2T23', 'pending'],
      ],
      ['d2T00', 'd2T23'],
    ],
    [
      'a failed range outside the window is left alone',
      [{ range: ['d1T00', 'd1T05'], status: 'failed' }],
      ['d1T06', 'd1T23'],
      [
        ['d1T00', 'd1T05', 'failed'],
        ['d1T06', 'd1T23', 'pending'],
      ],
      ['d1T06', 'd1T23'],
    ],
    [
      'failed and done ranges inside, a gap between them',
      [
        { range: ['d1T00', 'd1T03'], status: 'done' },
        { range: ['d1T08', 'd1T09'], status: 'failed' },
      ],
      ['d1T00', 'd1T11'],
      [
        ['d1T00', 'd1T03', 'done'],
        ['d1T04', 'd1T07', 'pending'],
        ['d1T08', 'd1T09', 'failed'],
        ['d1T10', 'd1T11', 'pending'],
      ],
      ['d1T04', 'd1T07'],
    ],
  ])('%s', (_name, rows, window, expected, next) => {
    const store = ledger(rows);
    try {
      const w = span(...window);
      planWindow(AMPLITUDE, store, SOURCE, w, 24, NOW);
      expect(shape(store)).toEqual(expected);
      const first = nextRange(AMPLITUDE, store, SOURCE, w, new Set());
      expect(first === undefined ? undefined : [first.start, first.end]).toEqual(next === undefined ? undefined : [bounds(span(...next)).start, bounds(span(...next)).end]);
      // Every hour of the window not fetched lies in a range wholly inside the window.
      for (let hour = w.first; hour <= w.last; hour++) {
        const holder = rangesOf(store, SOURCE).find((r) => parseHour(r.start, 'start')! <= hour && parseHour(r.end, 'start')! >= hour);
        expect(holder, `hour ${hour}`).toBeDefined();
        if (holder!.status !== 'done') expect(parseHour(holder!.start, 'start')! >= w.first && parseHour(holder!.end, 'start')! <= w.last).toBe(true);
      }
    } finally {
      store.close();
    }
  });

  it('counts only the hours of a done range that lie in the window as already fetched', () => {
    const store = ledger([{ range: ['d1T00', 'd1T23'], status: 'done' }]);
    try {
      expect(fetchedIn(AMPLITUDE, store, SOURCE, span('d1T12', 'd2T23'))).toEqual({ ranges: 1, units: 12 });
    } finally {
      store.close();
    }
  });
});

describe('planWindow (days)', () => {
  it('plans each day of the window once; a failed day is next, a done day is not', () => {
    const store = StagingStore.open(join(tempDir(), 'migration.db'));
    try {
      const source = 'mixpanel-api:1';
      const day = (d: string) => ({ start: d, end: d });
      addPendingRanges(store, source, [day('2025-03-01'), day('2025-03-02')], NOW);
      const [first, second] = rangesOf(store, source);
      markDone(store, first!.id, { bytes: 1, rowsRead: 1, rowsStaged: 1, rowsRejected: 0 }, {}, NOW);
      markFailed(store, second!.id, 'HTML page', NOW);
      const window = { first: Date.UTC(2025, 2, 1) / 86_400_000, last: Date.UTC(2025, 2, 3) / 86_400_000 };
      planWindow(MIXPANEL, store, source, window, 24, NOW);
      expect(rangesOf(store, source).map((r) => [r.start, r.status])).toEqual([
        ['2025-03-01', 'done'],
        ['2025-03-02', 'failed'],
        ['2025-03-03', 'pending'],
      ]);
      expect(nextRange(MIXPANEL, store, source, window, new Set())?.start).toBe('2025-03-02');
    } finally {
      store.close();
    }
  });
});
