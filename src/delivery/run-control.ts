/**
 * The stop state of one delivery run: who asked it to stop (an interrupt, a stop reason from a
 * chunk, an unexpected failure), the signals chunks watch, and the interrupt's grace period.
 */
import type { Clock } from '../util/clock.js';
import { forceOf } from '../util/interrupt-force.js';
import type { ChunkEnd, StopReason } from './chunk-delivery.js';

export type DeliveryEnd = { type: 'done' } | { type: 'interrupted' } | { type: 'stopped'; reason: StopReason };

export class RunControl {
  private readonly stopper = new AbortController();
  private readonly finished = new AbortController();
  /** Aborted: start no new attempt, end waits at once (interrupt or stop). */
  readonly abandon: AbortSignal;
  private stop: StopReason | undefined;
  private failure: unknown;
  private hasFailure = false;
  private unsettled = false;

  constructor(
    private readonly interrupt: AbortSignal,
    private readonly clock: Clock,
    private readonly graceMs: number,
  ) {
    this.abandon = AbortSignal.any([interrupt, this.stopper.signal]);
    interrupt.addEventListener('abort', this.onInterrupt, { once: true });
  }

  /** Aborted: cut requests in flight (a stop, or the grace period ran out). */
  get requests(): AbortSignal {
    return this.stopper.signal;
  }

  /**
   * After an interrupt, requests in flight get the grace period, then are cut; a second
   * interrupt (the force signal) cuts them at once.
   */
  private readonly onInterrupt = (): void => {
    const force = forceOf(this.interrupt);
    const endsGrace = [this.stopper.signal, this.finished.signal, ...(force ? [force] : [])];
    void this.clock.sleep(this.graceMs, AbortSignal.any(endsGrace)).then(() => this.stopper.abort());
  };

  settle(end: ChunkEnd): void {
    if (end.type !== 'settled') this.unsettled = true;
    if (end.type === 'stop' && this.stop === undefined) {
      this.stop = end.reason;
      this.stopper.abort();
    }
  }

  /** An unexpected error (a failed checkpoint write): stop everything, rethrow at the end. */
  fail(error: unknown): void {
    if (!this.hasFailure) {
      this.hasFailure = true;
      this.failure = error;
    }
    this.stopper.abort();
  }

  /** Ends the run; `exhausted` when every pending event was handed to a chunk. */
  finish(exhausted: boolean): DeliveryEnd {
    this.finished.abort();
    this.interrupt.removeEventListener('abort', this.onInterrupt);
    if (this.hasFailure) throw this.failure;
    if (this.stop !== undefined) return { type: 'stopped', reason: this.stop };
    return exhausted && !this.unsettled ? { type: 'done' } : { type: 'interrupted' };
  }
}
