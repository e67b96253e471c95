/**
 * --max-rate as a schedule (GCRA): each chunk books its events' share of time; a chunk waits
 * until the time booked before it has passed. Pure: the caller supplies "now" and does the waiting.
 */
export class RateLimiter {
  /** When the events booked so far will have been "spent", in ms. */
  private bookedUntilMs = Number.NEGATIVE_INFINITY;

  /** `ratePerSec` 0 or less means no limit. */
  constructor(private readonly ratePerSec: number) {}

  /** Books `events` and returns how long to wait before sending them, in ms. */
  reserve(events: number, nowMs: number): number {
    if (this.ratePerSec <= 0) return 0;
    const start = Math.max(this.bookedUntilMs, nowMs);
    this.bookedUntilMs = start + (events * 1000) / this.ratePerSec;
    return Math.max(0, Math.ceil(start - nowMs));
  }
}
