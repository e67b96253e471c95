/**
 * How many events a run may dead-letter before it stops. A server that refuses everything (a
 * proxy answering every POST with 400, a project that rejects our events) must not turn a
 * migration into dead letters: past a small share, the run stops and keeps the events pending.
 * Counts include refusals still being bisected, so concurrent chunks cannot each stay under
 * the limit while together going over it. Pure.
 */

/** The share of a run's events it may dead-letter, besides the absolute floor. */
export const DEAD_LETTER_SHARE = 0.01;

/** Events a run of `runEvents` may dead-letter: `floor` (--max-dead-letters), or 1% of the run when larger. */
export function deadLetterAllowance(runEvents: number, floor: number): number {
  return Math.max(floor, Math.floor(runEvents * DEAD_LETTER_SHARE));
}

export class RefusalGuard {
  private counted = 0;

  constructor(readonly allowance: number) {}

  /** Counts `events` refused alone; false when that goes over the allowance (then the run stops). */
  admit(events: number): boolean {
    this.counted += events;
    return this.counted <= this.allowance;
  }

  /** Refusals counted but not recorded after all (their chunk was given up): they are pending again. */
  release(events: number): void {
    this.counted -= events;
  }
}
