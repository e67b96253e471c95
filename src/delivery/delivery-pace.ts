/**
 * The pace of a delivery run: the controller's bounds from the settings (--max-rate is its
 * ceiling), and what each answer says to it. Every sender of the run (events, person and group
 * updates, the events `verify --resend-missing` sends again) books its requests on it.
 */
import type { Verdict } from '../http/classify-outcome.js';
import type { HttpOutcome } from '../http/http-outcome.js';
import type { Clock } from '../util/clock.js';
import type { DeliverySettings } from './delivery-options.js';
import { PaceController, type Congestion, type PaceBounds, type PaceTicket } from './pace-controller.js';

/**
 * The least the pace is cut to, in events per second: a chunk of 1,000 events then waits 10 s,
 * well within the retry budget, while a server refusing everything still stops the run.
 */
const FLOOR_PER_SEC = 100;

/**
 * Where a run with no ceiling starts (slow start): half the default ceiling to remote hosts, well
 * under what PostHog asks historical imports to stay below, so the first second cannot overfill
 * a server's one-second window.
 */
const SLOW_START_PER_SEC = 1000;

/** The bounds of a run's pace: --max-rate (0 = none) is the ceiling; a run starts at a quarter of it, or at SLOW_START_PER_SEC with none. */
export function deliveryPaceBounds(settings: Pick<DeliverySettings, 'maxRate'>): PaceBounds {
  const ceilingPerSec = settings.maxRate > 0 ? settings.maxRate : Number.POSITIVE_INFINITY;
  // A quarter of the ceiling reaches it in under a second at the controller's starting growth
  // (six times a second). With no ceiling the start grows the same way from SLOW_START_PER_SEC
  // until the first refusal, or until the pace no longer holds the run back (this machine, or
  // --concurrency, is then the limit): an unpaced start sent a burst a limited server refused.
  const startPerSec = Number.isFinite(ceilingPerSec) ? ceilingPerSec / 4 : SLOW_START_PER_SEC;
  return { ceilingPerSec, floorPerSec: Math.min(FLOOR_PER_SEC, ceilingPerSec), startPerSec };
}

export function deliveryPace(settings: Pick<DeliverySettings, 'maxRate'>): PaceController {
  return new PaceController(deliveryPaceBounds(settings));
}

/**
 * What an answer says about the server's load: a 429 (throttled), a 503 that says when to come
 * back (Retry-After: a server shedding load), no answer in time. A bare 503 is PostHog's capture
 * failing to write to its sink, which a slower pace does not cure: like other failures (a 500, a
 * reset connection) it is retried as it always was and leaves the pace alone, so a flaky proxy or
 * node refusing a share of requests at random does not drive the pace down to a crawl.
 */
export function congestionOf(verdict: Verdict, outcome: HttpOutcome): Congestion | undefined {
  if (verdict.type !== 'retry') return undefined;
  if (verdict.cause === 'throttled') return 'throttled';
  if (verdict.cause === 'timeout') return 'slow';
  if (outcome.type === 'response' && outcome.status === 503 && verdict.afterMs !== undefined) return 'unavailable';
  return undefined;
}

/** Waits until the pace books `events`; undefined when `signal` aborted first (nothing booked). */
export async function waitForPace(pace: PaceController, events: number, clock: Clock, signal: AbortSignal): Promise<PaceTicket | undefined> {
  for (;;) {
    const ticket = pace.reserve(events, clock.now());
    if (ticket.waitMs === 0) return ticket;
    await clock.sleep(ticket.waitMs, signal);
    if (signal.aborted) return undefined;
  }
}
