/**
 * A Clock on virtual time for simulations: sleeps wait in a queue, and `runUntil` moves time to
 * the earliest one each time everything else has settled, so concurrent waits end in time
 * order (the test clock moves time at each wait, which suits one waiter only). Nothing sleeps
 * for real.
 */
import type { Clock } from '../../src/util/clock.js';
import { seededRandom } from '../../src/util/seeded-random.js';

interface Sleeper {
  atMs: number;
  order: number;
  wake: () => void;
}

export interface VirtualClock extends Clock {
  /** Runs the simulation until `done` resolves: settles what can run, then moves to the next wake-up. */
  runUntil<T>(done: Promise<T>): Promise<T>;
}

/** Lets every callback queued so far (and what they queue) run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function virtualClock(startMs = 0, seed = 1): VirtualClock {
  let nowMs = startMs;
  let order = 0;
  const sleepers: Sleeper[] = [];
  return {
    now: () => nowMs,
    random: seededRandom(seed),
    sleep(ms, signal) {
      if (ms <= 0 || signal?.aborted) return Promise.resolve();
      return new Promise((resolve) => {
        const onAbort = (): void => {
          sleepers.splice(sleepers.indexOf(sleeper), 1);
          resolve();
        };
        const sleeper: Sleeper = {
          atMs: nowMs + ms,
          order: order++,
          wake: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        sleepers.push(sleeper);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    async runUntil(done) {
      let finished = false;
      const result = done.finally(() => {
        finished = true;
      });
      for (;;) {
        await settle();
        if (finished) return result;
        if (sleepers.length === 0) throw new Error('the simulation is stuck: nothing sleeps and nothing ended');
        sleepers.sort((a, b) => a.atMs - b.atMs || a.order - b.order);
        // Every sleeper due at that time wakes before the next settle, in the order they slept.
        const atMs = sleepers[0]!.atMs;
        nowMs = Math.max(nowMs, atMs);
        while (sleepers.length > 0 && sleepers[0]!.atMs === atMs) sleepers.shift()!.wake();
      }
    },
  };
}
