/**
 * A source API's request limits as sliding windows on the one clock: at most `max` requests
 * started in any `windowMs` (Mixpanel: 60 an hour, 3 a second). A request waits until every
 * window has room; the wait is reported, not treated as an error. Windows can be seeded with
 * the requests an earlier run made, so a re-run does not start with a burst the API refuses.
 * With a pace (reader-pace.ts), a request first waits for it, and each answer is told to it.
 */
import type { Verdict } from '../http/classify-outcome.js';
import type { HttpOutcome } from '../http/http-outcome.js';
import type { PaceController, PaceTicket } from '../delivery/pace-controller.js';
import { waitForPace } from '../delivery/delivery-pace.js';
import type { Clock } from '../util/clock.js';
import { readerCongestionOf } from './reader-pace.js';

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
    private readonly pace?: PaceController,
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

  /**
   * Waits until a request may start (the pace first, then the windows, which count it when it
   * starts), then counts it as started; its booking on the pace, to give back with its answer.
   * Returns early, uncounted, when `signal` aborts.
   */
  async take(signal: AbortSignal | undefined, onWait: (waitMs: number) => void): Promise<PaceTicket | undefined> {
    const ticket = this.pace === undefined || signal === undefined ? undefined : await waitForPace(this.pace, 1, this.clock, signal);
    for (;;) {
      if (signal?.aborted) return undefined;
      const now = this.clock.now();
      const wait = this.waitMs(now);
      if (wait <= 0) {
        this.starts.push(now);
        this.forget(now);
        return ticket;
      }
      onWait(wait);
      await this.clock.sleep(wait, signal);
    }
  }

  /** Tells the pace what the answer to a request taken with `ticket`, sent at `sentAtMs`, says about the vendor's load. */
  answered(ticket: PaceTicket | undefined, verdict: Verdict, outcome: HttpOutcome, sentAtMs: number): void {
    if (this.pace === undefined || ticket === undefined) return;
    const nowMs = this.clock.now();
    const congestion = readerCongestionOf(verdict, outcome);
    if (congestion !== undefined) this.pace.congested(congestion, ticket, nowMs);
    else if (verdict.type === 'ok') this.pace.accepted(ticket, 1, nowMs - sentAtMs, nowMs);
  }

  /** The pace now, in requests per second (Infinity: none). */
  paceNow(): number {
    return this.pace?.rate(this.clock.now()) ?? Number.POSITIVE_INFINITY;
  }

  private forget(nowMs: number): void {
    const longest = Math.max(0, ...this.limits.map((l) => l.windowMs));
    while (this.starts.length > 0 && this.starts[0]! <= nowMs - longest) this.starts.shift();
  }
}

/** The retry loop's hooks for one request on `window`: before each attempt, the pace and the limits; after it, what the answer says to the pace. */
export function windowHooks<T extends { outcome: HttpOutcome }>(
  window: RequestWindow,
  clock: Clock,
  signal: AbortSignal,
  onWait: (waitMs: number) => void,
): { beforeAttempt(): Promise<void>; onAnswer(verdict: Verdict, answer: T): void } {
  let ticket: PaceTicket | undefined;
  let sentAtMs = 0;
  return {
    beforeAttempt: async () => {
      ticket = await window.take(signal, onWait);
      sentAtMs = clock.now();
    },
    onAnswer: (verdict, answer) => window.answered(ticket, verdict, answer.outcome, sentAtMs),
  };
}
