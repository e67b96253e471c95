/** The sandbox's capture rate limit: a one-second sliding window of events. */
import { describe, expect, it } from 'vitest';
import { RateWindow } from '../../src/sandbox/capture/rate-window.js';

describe('RateWindow', () => {
  it.each([
    // [limit, steps of [events, nowMs, admitted]]
    [
      0,
      [
        [1e6, 0, true],
        [1e6, 0, true],
      ],
    ],
    [
      3000,
      [
        [1000, 0, true],
        [1000, 100, true],
        [1000, 200, true],
        [1000, 300, false],
        [1000, 1000, true],
        [1000, 1050, false],
        [1000, 1100, true],
      ],
    ],
    [
      1500,
      [
        [1000, 0, true],
        [1000, 500, false],
        [500, 500, true],
        [1000, 999, false],
        [1000, 1000, true],
      ],
    ],
  ] as const)('at %i events/s', (limit, steps) => {
    const window = new RateWindow(limit);
    expect(steps.map(([events, nowMs]) => window.admit(events, nowMs))).toEqual(steps.map(([, , admitted]) => admitted));
  });

  it('takes a new limit at once', () => {
    const window = new RateWindow(6000);
    expect(window.admit(5000, 0)).toBe(true);
    window.setLimit(1500);
    expect(window.admit(100, 10)).toBe(false);
    expect(window.admit(1000, 1001)).toBe(true);
  });
});
