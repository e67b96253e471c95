/**
 * The pace of a sender, in events per second, following what the server takes. Pure: the caller
 * reports each answer with the clock's now, and asks how long a request must wait.
 *
 * Additive-increase/multiplicative-decrease with a memory of the rate the server refused (the
 * shape of TCP CUBIC, in events per second instead of a window):
 * - a run starts at `startPerSec` and grows by `startGrowPerSec` each second while answers are
 *   accepted and the pace is what holds the sender back, up to the ceiling (slow start);
 * - a congestion signal (a 429, a 503 with Retry-After, a timeout, answers far slower than the server's fastest)
 *   cuts the pace by `cutFactor`, once per round (an answer to a request booked before the last
 *   cut cuts nothing more), and remembers the rate the server refused: what it accepted in its
 *   busiest second of the last two, at most the refused request's pace. A lone refusal before
 *   the server has refused at all only steps the pace back (a second one soon after confirms
 *   the limit), and one while the pace holds steady, or at the ceiling, is ignored unless
 *   another came among the last answers: refusals by chance do not drive the pace down;
 * - after a cut the pace climbs back (`growPerSec`) to `settleFactor` of the rate refused and
 *   holds there for `probeAfterRequests` accepted requests (a quarter of that after a cut that
 *   was not a failed probe; at most `probeAfterMs`), then probes for
 *   more room: slowly at first, faster the longer the server keeps accepting, so a probe past an
 *   unchanged limit costs about one refused request, and a limit that rose is found in seconds.
 * Requests are spaced as --max-rate always spaced them (GCRA): each waits after the one before
 * it for that one's events' share of a second at the pace, the pace as it is when the wait ends.
 */

import { busiestSecond, type Tally } from './busiest-second.js';

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
  probeAfterRequests: 100,
  probeAfterMs: 30_000,
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

/** The pace holds the sender back while a request waits for it, and this long after. */
const BINDING_MS = 1000;
/** Answers remembered; a refusal with another among the CONFIRM_ANSWERS answers before it is the limit whatever the pace does. */
const OUTCOMES = 20;
const CONFIRM_ANSWERS = 5;
/** Least time between two cuts, in ms. */
const MIN_ROUND_MS = 1000;
/** Longest wait before a waiter asks again, in ms. */
const RECHECK_MS = 250;
/** How late a waiter may wake and keep its place, in ms. */
const LATE_CREDIT_MS = 5;
/** Answer times remembered for the fastest recent answer. */
const LATENCY_SAMPLES = 50;

export class PaceController {
  private perSec: number;
  private round = 0;
  private lastUpdateMs: number | undefined;
  /** The last request booked: when it went and its events (the next waits their share of a second). */
  private lastSendMs = Number.NEGATIVE_INFINITY;
  private lastSendEvents = 0;
  /** Until when a request waits for the pace (the pace holds the sender back until a little after). */
  private bindingUntilMs = Number.NEGATIVE_INFINITY;
  /** The rate the server last refused; undefined until it refuses. */
  private refusedPerSec: number | undefined;
  private lastCutMs = Number.NEGATIVE_INFINITY;
  private acceptedSinceCut = 0;
  private probeStartMs: number | undefined;
  /** The pace a probe started from: held without a refusal, so a failed probe comes back to it. */
  private probeFromPerSec = 0;
  /**
   * Accepted requests to hold for before the next probe: the full count after a probe refused
   * near the pace it started from (the limit is known), a quarter after any other cut (the
   * limit moved, and what the server accepted while it moved underestimates it).
   */
  private holdRequests = 0;
  private hold: PaceHold = 'starting';
  /** The last cut was a lone refusal's, before any rate was refused (see tentativeCut). */
  private tentative = false;
  private readonly delivered: Tally[] = [];
  private readonly booked: Tally[] = [];
  private readonly latencies: number[] = [];
  /** The last answers, true for a congestion signal. */
  private readonly outcomes: boolean[] = [];
  private smoothLatencyMs: number | undefined;
  private meanEvents: number | undefined;

  constructor(
    private readonly bounds: PaceBounds,
    private readonly tuning: PaceTuning = DEFAULT_PACE_TUNING,
  ) {
    this.perSec = this.clamp(bounds.startPerSec);
  }

  /** The pace now, in events per second (Infinity: unpaced). */
  rate(nowMs: number): number {
    this.advance(nowMs);
    return this.perSec;
  }

  /** What holds the pace now. */
  heldBy(nowMs: number): PaceHold {
    this.advance(nowMs);
    if (this.perSec >= this.bounds.ceilingPerSec) return 'ceiling';
    if (nowMs - this.bindingUntilMs > BINDING_MS) return 'sender';
    return this.hold;
  }

  /**
   * Books `events` now if the pace allows (a ticket with `waitMs` 0), else says how long to wait
   * before asking again (nothing booked). The wait is at most RECHECK_MS: the pace may grow in
   * the meantime, and a wait computed at an old pace would hold the sender back.
   */
  reserve(events: number, nowMs: number): PaceTicket {
    this.advance(nowMs);
    const nextMs = this.lastSendMs + (this.lastSendEvents * 1000) / this.perSec;
    if (nextMs > nowMs) {
      this.bindingUntilMs = Math.max(this.bindingUntilMs, nextMs);
      return { waitMs: Math.min(RECHECK_MS, Math.ceil(nextMs - nowMs)), round: this.round, perSec: this.perSec };
    }
    // A waiter woken a little late keeps its place, so the pace is not lost to timer lag.
    this.lastSendMs = nowMs - nextMs <= LATE_CREDIT_MS ? nextMs : nowMs;
    this.lastSendEvents = events;
    this.meanEvents = this.meanEvents === undefined ? events : this.meanEvents * 0.9 + events * 0.1;
    this.booked.push({ atMs: nowMs, events });
    return { waitMs: 0, round: this.round, perSec: this.perSec };
  }

  /** A request of `events` booked with `ticket` was accepted, `latencyMs` after it was sent. */
  accepted(ticket: PaceTicket, events: number, latencyMs: number, nowMs: number): void {
    this.advance(nowMs);
    this.delivered.push({ atMs: nowMs, events });
    this.remember(false);
    if (ticket.round === this.round) this.acceptedSinceCut++;
    if (this.isSlow(latencyMs)) this.congested('slow', ticket, nowMs);
  }

  /** A congestion signal for a request booked with `ticket`. */
  congested(kind: Congestion, ticket: PaceTicket, nowMs: number): void {
    this.advance(nowMs);
    this.remember(true);
    // A refusal now and then while the pace holds steady (or holds nobody back) is a flaky
    // server's, not the limit: the request is retried and the pace kept. Refusals while the pace
    // climbs, or many of the last answers refused, are the limit.
    const exploring = (this.hold === 'starting' || this.hold === 'probing') && ticket.perSec < this.bounds.ceilingPerSec && nowMs - this.bindingUntilMs <= BINDING_MS;
    if (!exploring && !this.confirmed()) return;
    // Booked before the last cut, or within a second of it: that cut answered it. A second keeps
    // refusals scattered at random (a flaky server) from cutting at each answer.
    // A refusal right after a tentative cut confirms it, whenever its request was booked.
    const confirming = this.tentative && this.confirmed();
    if (!confirming && (ticket.round !== this.round || nowMs - this.lastCutMs < MIN_ROUND_MS)) return;
    this.tentative = false;
    if (kind !== 'slow' && this.refusedPerSec === undefined && !this.confirmed()) {
      this.tentativeCut(nowMs);
      return;
    }
    this.refusedPerSec = this.refusedEstimate(ticket, nowMs);
    // A probe refused goes back to just under the pace it started from, which the server took;
    // any other signal cuts.
    const probed = this.probeStartMs !== undefined && this.refusedPerSec * this.tuning.settleFactor <= this.probeFromPerSec;
    const cut = probed ? this.tuning.settleFactor ** 2 : this.tuning.cutFactor;
    this.holdRequests = probed ? this.tuning.probeAfterRequests : Math.ceil(this.tuning.probeAfterRequests / 4);
    this.perSec = this.clamp(Math.min(this.perSec, this.refusedPerSec) * cut);
    this.round++;
    this.lastCutMs = nowMs;
    this.acceptedSinceCut = 0;
    this.probeStartMs = undefined;
    this.hold = kind;
    // The server's window is full: the next request waits its gap at the new pace from now.
    this.lastSendMs = Math.max(this.lastSendMs, nowMs);
  }

  /**
   * A lone refusal before the server has refused at all: the start's climb may have passed the
   * limit, or the server refused one request by chance. The pace steps back and goes on climbing
   * as fast as before; a second refusal soon after (the limit: its window is full) cuts it and
   * records the rate refused, and a refusal by chance costs a fraction of a second.
   */
  private tentativeCut(nowMs: number): void {
    this.perSec = this.clamp(this.perSec * this.tuning.cutFactor);
    this.tentative = true;
    this.round++;
    this.lastCutMs = nowMs;
    this.lastSendMs = Math.max(this.lastSendMs, nowMs);
  }

  /**
   * Requests to keep in flight: what the pace sends during one answer's time, and one more; one
   * until the first answer (an unpaced start would otherwise send a burst a limited server refuses).
   */
  slots(maxSlots: number, nowMs: number): number {
    this.advance(nowMs);
    if (this.smoothLatencyMs === undefined || this.meanEvents === undefined) return 1;
    if (!Number.isFinite(this.perSec)) return maxSlots;
    const perAnswer = (this.perSec * this.smoothLatencyMs) / 1000 / this.meanEvents;
    return Math.max(1, Math.min(maxSlots, Math.ceil(perAnswer) + 1));
  }

  /** Moves the pace along its curve for the time since the last update. */
  private advance(nowMs: number): void {
    const lastMs = this.lastUpdateMs ?? nowMs;
    this.lastUpdateMs = Math.max(lastMs, nowMs);
    if (nowMs <= lastMs || nowMs - this.bindingUntilMs > BINDING_MS) return; // a pace that holds nobody back learns nothing
    this.perSec = this.clamp(this.grown(lastMs, nowMs));
  }

  private grown(fromMs: number, toMs: number): number {
    const seconds = (toMs - fromMs) / 1000;
    if (this.refusedPerSec === undefined) return this.perSec * this.tuning.startGrowPerSec ** seconds;
    const settle = this.refusedPerSec * this.tuning.settleFactor;
    if (this.perSec < settle) return Math.min(settle, this.perSec * this.tuning.growPerSec ** seconds);
    const held = this.acceptedSinceCut < this.holdRequests && toMs - this.lastCutMs < this.tuning.probeAfterMs;
    if (held) return this.perSec;
    if (this.probeStartMs === undefined) {
      this.probeStartMs = fromMs;
      this.probeFromPerSec = this.perSec;
      this.hold = 'probing';
    }
    const t0 = (fromMs - this.probeStartMs) / 1000;
    const t1 = (toMs - this.probeStartMs) / 1000;
    const exponent = this.tuning.probeGrowth * (t1 - t0) + (this.tuning.probeAcceleration / 2) * (t1 * t1 - t0 * t0);
    return this.perSec * Math.exp(exponent);
  }

  /**
   * The server's limit as this refusal shows it: what it accepted in its busiest second of the
   * last two (it refuses once its window is full), at most the pace the refused request was booked at;
   * a probe refused comes back to the pace it started from, which the server took. For an
   * unpaced sender, what it accepted, or else what it booked.
   */
  private refusedEstimate(ticket: PaceTicket, nowMs: number): number {
    const measured = busiestSecond(this.delivered, nowMs);
    if (!Number.isFinite(ticket.perSec)) return Math.max(measured > 0 ? measured : busiestSecond(this.booked, nowMs), this.bounds.floorPerSec);
    if (this.probeStartMs !== undefined) {
      // A probe refused: the server took the pace it started from, and most of the pace refused
      // (what it accepted lags behind a fast climb).
      const settle = this.tuning.settleFactor;
      return Math.max(this.probeFromPerSec / settle, Math.min(ticket.perSec, measured), ticket.perSec * settle * settle);
    }
    return measured > 0 ? Math.min(ticket.perSec, measured) : ticket.perSec;
  }

  private remember(refused: boolean): void {
    this.outcomes.push(refused);
    if (this.outcomes.length > OUTCOMES) this.outcomes.shift();
  }

  /** Another congestion signal among the answers just before this one: refusals that come together are a limit, not chance. */
  private confirmed(): boolean {
    return this.outcomes.slice(-CONFIRM_ANSWERS - 1, -1).some(Boolean);
  }

  private clamp(perSec: number): number {
    return Math.min(this.bounds.ceilingPerSec, Math.max(this.bounds.floorPerSec, perSec));
  }

  /** Records an answer time; true when answers are now far slower than the fastest recent one. */
  private isSlow(latencyMs: number): boolean {
    this.latencies.push(latencyMs);
    if (this.latencies.length > LATENCY_SAMPLES) this.latencies.shift();
    this.smoothLatencyMs = this.smoothLatencyMs === undefined ? latencyMs : this.smoothLatencyMs * 0.8 + latencyMs * 0.2;
    if (this.latencies.length < 5) return false;
    return this.smoothLatencyMs > Math.min(...this.latencies) * this.tuning.slowFactor + this.tuning.slowSlackMs;
  }
}
