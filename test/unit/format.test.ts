/** Counts, durations and rates as printed: one helper each, so every message says them alike. */
import { describe, expect, it } from 'vitest';
import { plural, seconds, took } from '../../src/util/format.js';

describe('plural', () => {
  it.each([
    [0, 'event', undefined, '0 events'],
    [1, 'event', undefined, '1 event'],
    [86028, 'event', undefined, '86,028 events'],
    [1, 'retry', 'retries', '1 retry'],
    [2, 'retry', 'retries', '2 retries'],
    [1, 'event was', 'events were', '1 event was'],
  ])('%d %s', (n, one, many, expected) => expect(plural(n, one, many)).toBe(expected));
});

describe('seconds', () => {
  it.each([
    [0, 'under 0.1 s'],
    [99, 'under 0.1 s'],
    [100, '0.1 s'],
    [2_345, '2.3 s'],
    [9_940, '9.9 s'],
    [9_960, '10 s'],
    [12_400, '12 s'],
    [59_400, '59 s'],
    [59_600, '1m00s'],
    [185_000, '3m05s'],
  ])('%d ms', (ms, expected) => expect(seconds(ms)).toBe(expected));
});

describe('took', () => {
  it.each([
    ['a run too short to measure gives no rate', 1, 1, 'in under 0.1 s'],
    ['zero time never divides by zero', 0, 1000, 'in under 0.1 s'],
    ['a measured run gives its rate', 2_000, 10_000, 'in 2.0 s (5,000 rows/s)'],
    ['the rate comes from the exact time, not the rounded one', 149, 1000, 'in 0.1 s (6,711 rows/s)'],
  ])('%s', (_name, ms, n, expected) => expect(took(ms, n, 'rows')).toBe(expected));
});
