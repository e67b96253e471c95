/**
 * The pace of a sender, in events per second, following what the server takes. Pure: the caller
 * reports each answer with the clock's now, and asks how long a request must wait.
 *
 * Additive-increase/multiplicative-decrease with a memory of the rate the server refused (the
 * shape of TCP CUBIC, in events per second instead of a window):
 * - a run starts at `startPerSec` and grows by `startGrowPerSec` each second while answers are
 *   accepted and the pace is what holds the sender back, up to the ceiling (slow start);
 * - a congestion signal (a 429, a 503 with Retry-After, a timeout, answers far slower than the
 *   server's fastest) cuts the pace by `cutFactor`, once per round (an answer to a request booked
 *   before the last cut cuts nothing more), and remembers the rate the server refused: what it
 *   accepted in its busiest second of the last two, at most the refused request's pace. With no
 *   rate refused yet, a refusal only steps the pace back unless the answer just before it was
 *   refused too (a full window refuses each request until it drains; chance refusals rarely come
 *   in a row). One while the pace holds steady, or at the ceiling, is ignored unless another came
 *   among the last answers or since the last cut: refusals by chance do not drive the pace down;
 * - after a cut the pace climbs back (`growPerSec`) to `settleFactor` of the rate refused and
 *   holds there for `probeAfterRequests` accepted requests (`probeAfterDropRequests` when the
 *   server was refused at far more before: a limit that dropped may rise again; a quarter, and at
 *   most `probeAfterCutMs`, after a cut that was not a failed probe), then probes for more room:
 *   slowly at first, faster the longer the server keeps accepting, so a probe past an unchanged
 *   limit costs about one refused request;
 * - once the server takes `escapeFactor` times the rate refused (over two seconds), that rate no
 *   longer holds (the limit rose, or chance refusals were taken for one): the pace climbs as at
 *   the start, and a limit that rose is found in a few seconds.
 * Requests are spaced as --max-rate always spaced them (GCRA): each waits after the one before
 * it for that one's events' share of a second at the pace, the pace as it is when the wait ends.
 */

import { AnswerTimes } from './answer-times.js';
import { busiestSecond, takenPerSec, type Tally } from './busiest-second.js';
import { type Congestion, DEFAULT_PACE_TUNING, type PaceBounds, type PaceHold, type PaceTicket, type PaceTuning } from './pace-tuning.js';

export { type Congestion, DEFAULT_PACE_TUNING, type PaceBounds, type PaceHold, type PaceTicket, type PaceTuning } from './pace-tuning.js';

/** The pace holds the sender back while a request waits for it, and this long after. */
const BINDING_MS = 1000;
/** Answers remembered; a refusal with another among the CONFIRM_ANSWERS answers before it is the limit whatever the pace does. */
const OUTCOMES = 20;
const CONFIRM_ANSWERS = 5;
/** Before any rate is refused, the confirming refusal must be among this many answers before. */
const START_CONFIRM_ANSWERS = 1;
/** A probe refused under this multiple of the rate refused before found the same limit. */
const PROBE_NEAR = 1.2;
/** Least time between two cuts, in ms. */
const MIN_ROUND_MS = 1000;
/** Longest wait before a waiter asks again, in ms. */
const RECHECK_MS = 250;
/** How late a waiter may wake and keep its place, in ms. */
const LATE_CREDIT_MS = 5;

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
  /** The longest the hold lasts, whatever the count, in ms. */
  private holdMs = 0;
  /** The most the server was refused at in this run: a rate refused far below it is a limit that dropped, and may rise again. */
  private formerPerSec = 0;
  /** Refusals since the last cut: two while the pace holds under a rate refused are the limit, however far apart. */
  private refusedSinceCut = 0;
  private hold: PaceHold = 'starting';
  /** The last cut was a lone refusal's, before any rate was refused (see tentativeCut). */
  private tentative = false;
  private readonly delivered: Tally[] = [];
  private readonly booked: Tally[] = [];
  private readonly answerTimes: AnswerTimes;
  /** The last answers, true for a congestion signal. */
  private readonly outcomes: boolean[] = [];
  private meanEvents: number | undefined;

  constructor(
    private readonly bounds: PaceBounds,
    private readonly tuning: PaceTuning = DEFAULT_PACE_TUNING,
  ) {
    this.perSec = this.clamp(bounds.startPerSec);
    this.answerTimes = new AnswerTimes(tuning.slowFactor, tuning.slowSlackMs);
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
    const escaped = this.refusedPerSec !== undefined && takenPerSec(this.delivered, nowMs) > this.refusedPerSec * this.tuning.escapeFactor;
    if (escaped) this.escape();
    if (this.answerTimes.slowAfter(latencyMs)) this.congested('slow', ticket, nowMs);
  }

  /** A congestion signal for a request booked with `ticket`. */
  congested(kind: Congestion, ticket: PaceTicket, nowMs: number): void {
    this.advance(nowMs);
    this.remember(true);
    this.refusedSinceCut++;
    // A refusal now and then while the pace holds steady (or holds nobody back) is a flaky
    // server's, not the limit: the request is retried and the pace kept. Refusals while the pace
    // climbs, or many of the last answers refused, are the limit.
    const exploring = (this.hold === 'starting' || this.hold === 'probing') && ticket.perSec < this.bounds.ceilingPerSec && nowMs - this.bindingUntilMs <= BINDING_MS;
    // A pace held under a rate refused that is refused again is above the limit, even when each
    // refusal comes alone: ignored, it would be refused each second for as long as it holds.
    const repeated = this.refusedPerSec !== undefined && this.refusedSinceCut > 1;
    if (!exploring && !this.confirmed() && !repeated) return;
    // Booked before the last cut, or within a second of it: that cut answered it. A second keeps
    // refusals scattered at random (a flaky server) from cutting at each answer.
    // A refusal right after a tentative cut confirms it, whenever its request was booked.
    const confirming = this.tentative && this.startLimit();
    if (!confirming && (ticket.round !== this.round || nowMs - this.lastCutMs < MIN_ROUND_MS)) return;
    this.tentative = false;
    if (kind !== 'slow' && this.refusedPerSec === undefined && !this.startLimit()) {
      this.tentativeCut(nowMs);
      return;
    }
    // A probe refused near the pace it started from found the limit where it was: the rate refused
    // stays (what the server took, counted by answer times, may read a request above it), and the
    // pace goes back to just under where the probe started, which the server took. Any other signal cuts.
    const estimate = this.refusedEstimate(ticket, nowMs);
    const settled = this.probeFromPerSec / this.tuning.settleFactor;
    const probed = this.probeStartMs !== undefined && estimate <= settled * PROBE_NEAR;
    this.refusedPerSec = probed ? Math.min(estimate, settled) : estimate;
    this.formerPerSec = Math.max(this.formerPerSec, this.refusedPerSec);
    const cut = probed ? this.tuning.settleFactor ** 2 : this.tuning.cutFactor;
    this.holdFor(probed);
    this.perSec = this.clamp(Math.min(this.perSec, this.refusedPerSec) * cut);
    this.round++;
    this.lastCutMs = nowMs;
    this.acceptedSinceCut = 0;
    this.refusedSinceCut = 0;
    this.probeStartMs = undefined;
    this.hold = kind;
    // The server's window is full: the next request waits its gap at the new pace from now.
    this.lastSendMs = Math.max(this.lastSendMs, nowMs);
  }

  /**
   * How long the pace holds before the next probe. After a probe refused near the pace it started
   * from, the limit is known: the full count, so that probing an unchanged limit costs few refused
   * requests. Unless the server was refused at far more before: its limit dropped, and a limit
   * that dropped may rise again, so it is probed sooner (a refused request each few seconds).
   * After any other cut the limit moved, and what the server took while it moved underestimates
   * it: a quarter of the count, and at most a second.
   */
  private holdFor(probed: boolean): void {
    const dropped = this.refusedPerSec! < this.formerPerSec * this.tuning.dropShare;
    const t = this.tuning;
    this.holdRequests = !probed ? Math.ceil(t.probeAfterRequests / 4) : dropped ? Math.min(t.probeAfterDropRequests, t.probeAfterRequests) : t.probeAfterRequests;
    this.holdMs = probed ? t.probeAfterMs : t.probeAfterCutMs;
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
    this.refusedSinceCut = 0;
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
    const smoothMs = this.answerTimes.smoothMs;
    if (smoothMs === undefined || this.meanEvents === undefined) return 1;
    if (!Number.isFinite(this.perSec)) return maxSlots;
    const perAnswer = (this.perSec * smoothMs) / 1000 / this.meanEvents;
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
    const held = this.acceptedSinceCut < this.holdRequests && toMs - this.lastCutMs < this.holdMs;
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
   * The server took well past the rate refused within a second: its limit rose (or a few
   * refusals by chance were taken for one). The pace climbs as at the start, and the next refusal
   * is treated as the start's first.
   */
  private escape(): void {
    this.refusedPerSec = undefined;
    this.refusedSinceCut = 0;
    this.probeStartMs = undefined;
    this.hold = 'starting';
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
      // A probe refused: the server took the pace it started from. Not the pace refused: a probe
      // climbs no further than half again what the server took (past that the pace escapes), and
      // a pace the sender did not fill is no rate the server took.
      return Math.max(this.probeFromPerSec / this.tuning.settleFactor, Math.min(ticket.perSec, measured));
    }
    return measured > 0 ? Math.min(ticket.perSec, measured) : ticket.perSec;
  }

  private remember(refused: boolean): void {
    this.outcomes.push(refused);
    if (this.outcomes.length > OUTCOMES) this.outcomes.shift();
  }

  /** Another congestion signal among the `answers` just before this one: refusals that come together are a limit, not chance. */
  private confirmed(answers = CONFIRM_ANSWERS): boolean {
    return this.outcomes.slice(-answers - 1, -1).some(Boolean);
  }

  /**
   * A refusal with no rate refused yet shows a limit only right after another: a full window
   * refuses each request until it drains, and two refusals by chance rarely come in a row.
   */
  private startLimit(): boolean {
    return this.confirmed(START_CONFIRM_ANSWERS);
  }

  private clamp(perSec: number): number {
    return Math.min(this.bounds.ceilingPerSec, Math.max(this.bounds.floorPerSec, perSec));
  }
}
