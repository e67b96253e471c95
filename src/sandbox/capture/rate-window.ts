/**
 * A capture rate limit for rehearsals and benchmarks: at most `eventsPerSec` events accepted in
 * any one second; a request that would pass it is answered 429 without Retry-After, as
 * PostHog's capture answers a token over its quota or an overloaded pipeline. The limit can be
 * changed while the sandbox runs (POST /_sandbox/rate-limit?events_per_sec=n), to rehearse a
 * server whose room changes mid-run. Pure: the caller gives the time.
 */
const WINDOW_MS = 1000;

export class RateWindow {
  private readonly accepted: Array<{ atMs: number; events: number }> = [];
  private inWindow = 0;

  /** `eventsPerSec` 0 or less: no limit. */
  constructor(private eventsPerSec: number) {}

  get limit(): number {
    return this.eventsPerSec;
  }

  setLimit(eventsPerSec: number): void {
    this.eventsPerSec = eventsPerSec;
  }

  /** Counts `events` as accepted now if they fit the last second's room; false when they do not. */
  admit(events: number, nowMs: number): boolean {
    while (this.accepted.length > 0 && this.accepted[0]!.atMs <= nowMs - WINDOW_MS) this.inWindow -= this.accepted.shift()!.events;
    if (this.eventsPerSec > 0 && this.inWindow + events > this.eventsPerSec) return false;
    this.accepted.push({ atMs: nowMs, events });
    this.inWindow += events;
    return true;
  }
}
