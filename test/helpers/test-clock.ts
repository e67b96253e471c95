/** A Clock that never sleeps: each wait is recorded and moves its time forward at once. */
import type { Clock } from '../../src/util/clock.js';

export interface TestClock extends Clock {
  /** Every wait asked for, in ms, in order. */
  readonly waits: number[];
}

export function testClock(startMs = Date.UTC(2026, 0, 1), onSleep?: (ms: number) => void): TestClock {
  let nowMs = startMs;
  const waits: number[] = [];
  return {
    waits,
    now: () => nowMs,
    random: () => 0,
    sleep: async (ms) => {
      waits.push(ms);
      nowMs += ms;
      onSleep?.(ms);
    },
  };
}
