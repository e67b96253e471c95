/** The source APIs' request limits as sliding windows on the test clock. */
import { describe, expect, it } from 'vitest';
import { RequestWindow } from '../../src/source-apis/request-window.js';
import { testClock } from '../helpers/test-clock.js';

const HOUR = 3_600_000;

async function starts(window: RequestWindow, clock: ReturnType<typeof testClock>, n: number): Promise<number[]> {
  const at: number[] = [];
  for (let i = 0; i < n; i++) {
    await window.take(undefined, () => {});
    at.push(clock.now());
  }
  return at;
}

describe('RequestWindow', () => {
  it('lets 60 requests an hour through, three a second, and waits for the rest', async () => {
    const clock = testClock(0);
    const window = new RequestWindow(
      [
        { max: 60, windowMs: HOUR },
        { max: 3, windowMs: 1000 },
      ],
      clock,
    );
    const at = await starts(window, clock, 62);
    expect(at.slice(0, 6)).toEqual([0, 0, 0, 1000, 1000, 1000]);
    expect(at[59]).toBe(19_000);
    expect(at[60]).toBe(HOUR);
    expect(at[61]).toBe(HOUR);
  });

  it('starts from the requests an earlier run made', async () => {
    const clock = testClock(HOUR);
    const window = new RequestWindow([{ max: 2, windowMs: HOUR }], clock, [HOUR - 100_000, HOUR - 50_000]);
    const waits: number[] = [];
    await window.take(undefined, (ms) => waits.push(ms));
    expect(waits).toEqual([HOUR - 100_000]);
    expect(clock.now()).toBe(2 * HOUR - 100_000);
  });

  it('has no limit without limits, and returns at once when aborted', async () => {
    const clock = testClock(0);
    expect(await starts(new RequestWindow([], clock), clock, 100)).toEqual(new Array(100).fill(0));
    const full = new RequestWindow([{ max: 1, windowMs: HOUR }], clock, [0]);
    const controller = new AbortController();
    controller.abort();
    await full.take(controller.signal, () => {});
    expect(clock.waits).toEqual([]);
  });
});
