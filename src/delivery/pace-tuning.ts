/** The bounds and the tuning of a pace (pace-controller.ts): where it may go and how it moves; what holds it, and a booking. */

/** Where the pace may go, in events per second. */
export interface PaceBounds {
  /** The most the pace may reach (--max-rate); Infinity for none. */
  ceilingPerSec: number;
  /** The least a cut may bring it to. */
  floorPerSec: number;
  /** The pace the run starts at (never above the ceiling). */
  startPerSec: number;
}

/** How the pace moves. */
export interface PaceTuning {
  /** Multiplier of the pace at a congestion signal. */
  cutFactor: number;
  /** After a cut, the pace climbs back to this share of the rate refused, and holds. */
  settleFactor: number;
  /** Growth per second before the server first refuses (6 = six times each second). */
  startGrowPerSec: number;
  /** Growth per second climbing back after a cut. */
  growPerSec: number;
  /** A probe's growth: e^(probeGrowth + probeAcceleration * s) per second, s seconds into the probe. */
  probeGrowth: number;
  probeAcceleration: number;
  /** Accepted requests at the held pace before probing beyond it. */
  probeAfterRequests: number;
  /** Time at the held pace after which it probes whatever the count (a slow sender), in ms. */
  probeAfterMs: number;
  /** The hold after a cut that was not a failed probe, at most, in ms (its count is a quarter of probeAfterRequests). */
  probeAfterCutMs: number;
  /** The hold after a failed probe (at most probeAfterRequests) while the rate refused is under `dropShare` of the most refused before in the run (the limit dropped). */
  probeAfterDropRequests: number;
  dropShare: number;
  /** The server taking this many times the rate refused (over two seconds): that rate no longer holds, and the pace climbs as at the start. */
  escapeFactor: number;
  /** Answers slower on average than this many times the fastest recent one, plus `slowSlackMs`, are a congestion signal. */
  slowFactor: number;
  slowSlackMs: number;
}

export const DEFAULT_PACE_TUNING: PaceTuning = {
  cutFactor: 0.7,
  settleFactor: 0.95,
  startGrowPerSec: 6,
  growPerSec: 2,
  probeGrowth: 0.05,
  probeAcceleration: 0.3,
  probeAfterRequests: 120,
  probeAfterMs: 30_000,
  probeAfterCutMs: 1000,
  probeAfterDropRequests: 40,
  dropShare: 0.6,
  escapeFactor: 1.3,
  slowFactor: 4,
  slowSlackMs: 250,
};

/** What holds the pace where it is: the server's refusals or slowness, the ceiling, or the sender itself. */
export type PaceHold = 'starting' | 'probing' | 'ceiling' | 'throttled' | 'unavailable' | 'slow' | 'sender';

/** A congestion signal: the server refused (429, 503 with Retry-After) or stalled (a timeout, slow answers). */
export type Congestion = 'throttled' | 'unavailable' | 'slow';

/** A booking (`waitMs` 0: the round and pace it was booked at, given back with its answer), or how long to wait before asking again. */
export interface PaceTicket {
  waitMs: number;
  round: number;
  perSec: number;
}
