/**
 * A source API's request limits as sliding windows on the one clock: at most `max` requests
 * started in any `windowMs` (Mixpanel: 60 an hour, 3 a second). A request waits until every
 * window has room; the wait is reported, not treated as an error. Windows can be seeded with
 * the requests an earlier run made, so a re-run does not start with a burst the API refuses.
 */
import type { Clock } from '../util/clock.js';

export interface WindowLimit {
  max: number;
  windowMs: number;
}

export class RequestWindow {
  private readonly starts: number[];

  constructor(
    private readonly limits: readonly WindowLimit[],
    private readonly clock: Clock,
    /** Start times (ms) of requests already made, oldest first. */
    seed: readonly number[] = [],
  ) {
    this.starts = [...seed].sort((a, b) => a - b);
  }

  /** How long the next request must wait, in ms (0 when it may start now). */
  waitMs(nowMs: number): number {
    let wait = 0;
    for (const { max, windowMs } of this.limits) {
      if (max <= 0) continue;
      const inWindow = this.starts.filter((t) => t > nowMs - windowMs);
      if (inWindow.length >= max) wait = Math.max(wait, inWindow[inWindow.length - max]! + windowMs - nowMs);
    }
    return wait;
  }

  /** Waits until a request may start, then counts it as started. Returns early, uncounted, when `signal` aborts. */
  async take(signal: AbortSignal | undefined, onWait: (waitMs: number) => void): Promise<void> {
    for (;;) {
      if (signal?.aborted) return;
      const now = this.clock.now();
      const wait = this.waitMs(now);
      if (wait <= 0) {
        this.starts.push(now);
        this.forget(now);
        return;
      }
      onWait(wait);
      await this.clock.sleep(wait, signal);
    }
  }

  private forget(nowMs: number): void {
    const longest = Math.max(0, ...this.limits.map((l) => l.windowMs));
    while (this.starts.length > 0 && this.starts[0]! <= nowMs - longest) this.starts.shift();
  }
}
