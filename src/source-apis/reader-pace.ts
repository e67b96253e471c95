/**
 * The pace of a source API's requests: the delivery's controller (delivery/pace-controller.ts)
 * counting requests instead of events, with each API's own ceiling. The request windows
 * (request-window.ts) keep the documented hourly and per-second limits; the pace spaces requests
 * under them and slows down when the vendor refuses anyway (a 429, a 503: a shared quota, a
 * proxy, a vendor under load), so a storm of refusals is not met with requests as fast as the
 * windows allow. Retry-After is obeyed by the one retry loop as before. Pure.
 */
import type { Verdict } from '../http/classify-outcome.js';
import type { HttpOutcome } from '../http/http-outcome.js';
import { DEFAULT_PACE_TUNING, PaceController, type Congestion, type PaceTuning } from '../delivery/pace-controller.js';

/** The least the pace is cut to: one request a minute, in requests per second. */
const READER_FLOOR_PER_SEC = 1 / 60;

/**
 * A reader's tuning: answer times say nothing (a day's export takes seconds or many minutes by
 * its size, not by the vendor's load), so only refusals cut; a hold of a few requests, since
 * requests are few, and of up to probeAfterMs after any cut. What a vendor took in two seconds is
 * a request or two, too few to show that its limit rose: the probes find it.
 */
export const READER_PACE_TUNING: PaceTuning = {
  ...DEFAULT_PACE_TUNING,
  probeAfterRequests: 20,
  probeAfterCutMs: DEFAULT_PACE_TUNING.probeAfterMs,
  escapeFactor: Number.POSITIVE_INFINITY,
  slowFactor: Number.POSITIVE_INFINITY,
};

/** A reader's pace, starting at its ceiling (the windows already hold it to the documented limits); with none (Infinity), unpaced until refused. */
export function readerPace(ceilingPerSec: number): PaceController {
  return new PaceController({ ceilingPerSec, floorPerSec: Math.min(READER_FLOOR_PER_SEC, ceilingPerSec), startPerSec: ceilingPerSec }, READER_PACE_TUNING);
}

/** What a vendor's answer says about its load: a 429, or a 503 (with or without Retry-After: the vendors document no other meaning for it). */
export function readerCongestionOf(verdict: Verdict, outcome: HttpOutcome): Congestion | undefined {
  if (verdict.type !== 'retry') return undefined;
  if (verdict.cause === 'throttled') return 'throttled';
  if (outcome.type === 'response' && outcome.status === 503) return 'unavailable';
  return undefined;
}
