/** The pace controller alone: spacing at a pace, cuts, the hold under the rate refused, probes, slots. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PACE_TUNING, PaceController, type PaceBounds } from '../../src/delivery/pace-controller.js';

/** A pace fixed at `perSec`: its ceiling is where it starts. */
const fixed = (perSec: number): PaceBounds => ({ ceilingPerSec: perSec, floorPerSec: 1, startPerSec: perSec });

/** Books `events` at `nowMs` after waiting as the pace says; returns when it went. */
function send(pace: PaceController, events: number, nowMs: number): { atMs: number; ticket: ReturnType<PaceController['reserve']> } {
  let atMs = nowMs;
  for (;;) {
    const ticket = pace.reserve(events, atMs);
    if (ticket.waitMs === 0) return { atMs, ticket };
    atMs += ticket.waitMs;
  }
}

describe('PaceController', () => {
  it('is unpaced with no ceiling until the server refuses', () => {
    const pace = new PaceController({ ceilingPerSec: Number.POSITIVE_INFINITY, floorPerSec: 100, startPerSec: Number.POSITIVE_INFINITY });
    expect([pace.reserve(1e6, 0).waitMs, pace.reserve(1e6, 0).waitMs]).toEqual([0, 0]);
    expect(pace.rate(0)).toBe(Number.POSITIVE_INFINITY);
  });

  it.each([
    // [pace, events per request, requests, when each went (ms)]
    [1000, 500, 3, [0, 500, 1000]],
    [2000, 1000, 4, [0, 500, 1000, 1500]],
    [1000, 100, 3, [0, 100, 200]],
  ] as const)('spaces requests at a fixed pace of %i events/s', (perSec, events, n, expected) => {
    const pace = new PaceController(fixed(perSec));
    const went: number[] = [];
    let now = 0;
    for (let i = 0; i < n; i++) {
      now = send(pace, events, now).atMs;
      went.push(now);
    }
    expect(went).toEqual(expected);
  });

  it('keeps the long-run average at the pace', () => {
    const pace = new PaceController(fixed(2000));
    let now = 0;
    for (let i = 0; i < 100; i++) now = send(pace, 1000, now).atMs;
    expect(now).toBe(99 * 500);
  });

  it('ignores a lone refusal at the ceiling; a second among the last answers cuts, once per round and at most once a second', () => {
    const pace = new PaceController(fixed(4000));
    const a = send(pace, 1000, 0);
    const b = send(pace, 1000, a.atMs);
    const c = send(pace, 1000, b.atMs);
    pace.congested('throttled', a.ticket, 300); // alone: chance, not the limit
    expect(pace.rate(300)).toBe(4000);
    pace.congested('throttled', b.ticket, 305); // the second: the limit
    expect(pace.rate(305)).toBeCloseTo(2800);
    pace.congested('throttled', c.ticket, 310); // booked before the cut: no second cut
    expect(pace.rate(310)).toBeGreaterThanOrEqual(2800);
    expect(pace.rate(310)).toBeLessThan(2830);
    const d = send(pace, 1000, 310);
    pace.congested('throttled', d.ticket, d.atMs + 10); // within a second of the cut
    expect(pace.rate(d.atMs + 10)).toBeGreaterThan(2800);
    expect(pace.heldBy(d.atMs + 10)).toBe('throttled');
  });

  it('steps back at a lone refusal in the slow start and goes on climbing as fast; a second soon after is the limit', () => {
    const lone = new PaceController({ ceilingPerSec: Number.POSITIVE_INFINITY, floorPerSec: 1, startPerSec: 1000 });
    // Three requests, the later two waiting for the pace (so it is what holds the sender back); the third refused.
    let now = 0;
    for (let i = 0; i < 2; i++) now = send(lone, 100, now).atMs;
    const third = send(lone, 100, now);
    now = third.atMs + 10;
    const before = lone.rate(now);
    lone.congested('throttled', third.ticket, now);
    expect(lone.rate(now)).toBeCloseTo(before * 0.7, 0);
    for (let i = 0; i < 30; i++) {
      const { atMs, ticket } = send(lone, 100, now);
      now = atMs;
      lone.accepted(ticket, 100, 10, now + 10);
    }
    expect(lone.rate(now)).toBeGreaterThan(1000 * 6 ** ((now - 1000) / 1000)); // still growing six times a second
    expect(lone.heldBy(now)).toBe('starting');

    const limited = new PaceController({ ceilingPerSec: Number.POSITIVE_INFINITY, floorPerSec: 1, startPerSec: 1000 });
    const a = send(limited, 100, 0);
    const b = send(limited, 100, a.atMs);
    const c = send(limited, 100, b.atMs);
    limited.congested('throttled', b.ticket, c.atMs + 10);
    limited.congested('throttled', c.ticket, c.atMs + 15); // booked before the step back, refused right after it: confirms
    expect(limited.heldBy(c.atMs + 15)).toBe('throttled');
    expect(limited.rate(c.atMs + 15)).toBeLessThan(b.ticket.perSec * 0.7);
  });

  it.each([
    // [what came between the two refusals, what holds the pace after the second]
    ['an accepted answer', 'starting'],
    ['nothing', 'throttled'],
  ] as const)('in the start, two refusals with %s between them: the pace is held by %s', (_between, expected) => {
    // A full window refuses each request until it drains; two chance refusals rarely come in a row.
    const pace = new PaceController({ ceilingPerSec: Number.POSITIVE_INFINITY, floorPerSec: 1, startPerSec: 1000 });
    const a = send(pace, 100, 0);
    const b = send(pace, 100, a.atMs);
    const c = send(pace, 100, b.atMs);
    pace.congested('throttled', b.ticket, c.atMs + 10);
    if (expected === 'starting') pace.accepted(a.ticket, 100, 10, c.atMs + 12);
    pace.congested('throttled', c.ticket, c.atMs + 15);
    expect(pace.heldBy(c.atMs + 15)).toBe(expected);
  });

  it.each([
    [1, false],
    [2, true],
  ])('holding under a rate refused, %i refusal(s) since the last cut, each alone: cut %s', (refusals, cuts) => {
    // A pace held just above the limit is refused about once a second, each refusal alone.
    const pace = new PaceController({ ceilingPerSec: 100_000, floorPerSec: 1, startPerSec: 3000 }, { ...DEFAULT_PACE_TUNING, probeAfterRequests: 400, probeAfterCutMs: 30_000 });
    const first = send(pace, 100, 0);
    const second = send(pace, 100, first.atMs);
    let now = second.atMs + 10;
    pace.congested('throttled', first.ticket, now);
    pace.congested('throttled', second.ticket, now); // the limit: recorded, held under it
    const accept = (n: number): void => {
      for (let i = 0; i < n; i++) {
        const { atMs, ticket } = send(pace, 100, now);
        now = atMs;
        pace.accepted(ticket, 100, 10, now + 10);
      }
    };
    accept(40);
    const held = pace.rate(now);
    expect(pace.heldBy(now)).toBe('throttled');
    for (let r = 0; r < refusals; r++) {
      if (r > 0) accept(8); // more than the 5 answers a refusal looks back on
      const { atMs, ticket } = send(pace, 100, now);
      now = atMs + 10;
      pace.congested('throttled', ticket, now);
    }
    expect(pace.rate(now) < held * 0.75).toBe(cuts);
  });

  it('climbs back under the rate refused, holds, probes past it, and climbs as at the start once the server took half again the rate refused', () => {
    const pace = new PaceController({ ceilingPerSec: 100_000, floorPerSec: 1, startPerSec: 3000 });
    let now = 0;
    const first = send(pace, 100, now);
    const second = send(pace, 100, first.atMs);
    now = second.atMs + 10;
    pace.congested('throttled', first.ticket, now); // steps back
    pace.congested('throttled', second.ticket, now); // confirms: the rate refused is recorded
    const rates: number[] = [];
    const holds: string[] = [];
    for (let i = 0; i < 400; i++) {
      const { atMs, ticket } = send(pace, 100, now);
      now = atMs;
      pace.accepted(ticket, 100, 10, now + 10);
      rates.push(pace.rate(now));
      holds.push(pace.heldBy(now));
    }
    const refused = second.ticket.perSec;
    // Held at 0.95 of the rate refused (the pace the second was booked at) for 25 requests...
    expect(rates[20]).toBeCloseTo(refused * 0.95, 0);
    // ...then probing: past the rate refused, and growing...
    const probing = holds.indexOf('probing');
    expect(probing).toBeGreaterThan(20);
    const past = rates.findIndex((r, i) => i > probing && r > refused);
    expect(holds[past]).toBe('probing');
    // ...and once the server took half again the rate refused, that rate no longer holds: the start's climb.
    expect(holds[399]).toBe('starting');
    expect(rates[399]).toBeGreaterThan(refused * 1.5);
  });

  it.each([
    // [pace, answer time (ms), events per request, most slots, slots]
    [3000, 30, 1000, 4, 2],
    [6000, 500, 100, 8, 8],
    [1000, 100, 100, 4, 2],
  ] as const)('keeps as many requests in flight as the pace fills in one answer (%i events/s, %i ms)', (perSec, latencyMs, events, most, expected) => {
    const pace = new PaceController(fixed(perSec));
    expect(pace.slots(most, 0)).toBe(1); // until the first answer
    const { ticket } = send(pace, events, 0);
    pace.accepted(ticket, events, latencyMs, latencyMs);
    expect(pace.slots(most, latencyMs)).toBe(expected);
  });
});
