/**
 * The delivery engine's pace against a simulated server on a virtual clock: a sliding one-second
 * window of events (429 past it), whose limit may change mid-run. Figures asked of the pace:
 * at least 0.9x of a steady limit with at most 2% of requests refused, with a ceiling or none
 * (the slow start); within 20% of a new limit within 10 s of a change; the ceiling reached
 * within 5 s when the server has no limit (with none, the rate of an unpaced run); refusals by
 * chance not driving the pace down; and nothing lost or accepted twice through any of it.
 */
import { describe, expect, it } from 'vitest';
import { resolveSettings, type DeliverySettings } from '../../src/delivery/delivery-options.js';
import { runDelivery, type DeliveryResult } from '../../src/delivery/delivery-run.js';
import { acceptedRate, simulatedCapture, simulatedChunks, type CaptureModel, type SimulatedCapture } from '../helpers/simulated-capture.js';
import { virtualClock } from '../helpers/virtual-clock.js';

interface Simulation {
  sim: SimulatedCapture;
  result: DeliveryResult;
  delivered: number[];
  /** The pace after each progress report: [ms since start, events/s]. */
  paces: Array<[number, number]>;
}

async function simulate(model: CaptureModel, total: number, given: Partial<DeliverySettings>, seed = 7): Promise<Simulation> {
  const clock = virtualClock(0, seed);
  const sim = simulatedCapture(clock, model);
  const settings = { ...resolveSettings('http://127.0.0.1:1', {}), ...given };
  const delivered: number[] = [];
  const paces: Array<[number, number]> = [];
  const run = runDelivery({
    settings,
    overheadBytes: 100,
    interrupt: new AbortController().signal,
    chunks: simulatedChunks(total, settings.chunkEvents),
    sender: { prepare: () => undefined, send: sim.send },
    clock,
    callbacks: {
      delivered: (seqs) => void delivered.push(...seqs),
      deadLettered: () => undefined,
      progress: (stats) => void paces.push([clock.now(), stats.pace.perSec]),
    },
  });
  const result = await clock.runUntil(run);
  return { sim, result, delivered, paces };
}

function expectExactlyOnce(s: Simulation, total: number): void {
  expect(s.result.end).toEqual({ type: 'done' });
  // Counted, not compared element by element: a deep comparison of 200,000 numbers takes seconds.
  const seen = new Uint8Array(total + 1);
  for (const seq of s.sim.accepted) seen[seq]! += 1;
  expect(seen.slice(1).every((n) => n === 1)).toBe(true);
  expect(s.sim.accepted).toHaveLength(total);
  expect(new Set(s.delivered).size === total && s.delivered.length === total).toBe(true);
}

/** How long after `fromMs` the accepted rate over two seconds first comes within 20% of `limit`. */
function trackedAfterMs(sim: SimulatedCapture, limit: number, fromMs: number, toMs: number): number {
  for (let t = fromMs; t + 2000 <= toMs; t += 100) if (Math.abs(acceptedRate(sim, t, t + 2000) / limit - 1) <= 0.2) return t + 2000 - fromMs;
  return Number.POSITIVE_INFINITY;
}

describe('the pace against a simulated server', () => {
  it.each([
    // [--max-rate, events per request, events, most refused share]: a ceiling well above the
    // server's limit, and none, as `--max-rate 0` asks (the slow start from 1,000 events/s); and
    // the bench's shape, a 40 s run of about 500 events a request, where the start's refusals
    // weigh most.
    [10_000, 1000, 450_000, 0.02],
    [0, 1000, 450_000, 0.02],
    [0, 500, 120_000, 0.02],
  ])('holds a steady limit of 3,000 events/s at 0.9x or more (--max-rate %i, chunks of %i)', async (maxRate, chunkEvents, total, mostRefused) => {
    const s = await simulate({ limitAt: () => 3000 }, total, { maxRate, chunkEvents });
    expectExactlyOnce(s, total);
    const ratio = total / (s.result.elapsedMs / 1000) / 3000;
    const refusedShare = s.sim.refused / s.sim.requests;
    console.log(`steady 3000, --max-rate ${maxRate}: ratio ${ratio.toFixed(3)}, refused ${s.sim.refused}/${s.sim.requests} (${(refusedShare * 100).toFixed(2)}%)`);
    expect(ratio).toBeGreaterThanOrEqual(0.9);
    expect(refusedShare).toBeLessThanOrEqual(mostRefused);
    expect(s.result.stats.refused).toBe(s.sim.refused);
  });

  it('follows a limit that drops from 6,000 to 1,500 events/s and back, within 20% within 10 s of each change', async () => {
    // Chunks of 100 events (what PostHog's own clients send): a one-second window of 1,500
    // events takes at most one chunk of 1,000, so 1,000-event chunks could not come within 20%.
    const total = 160_000;
    const limitAt = (nowMs: number) => (nowMs >= 12_000 && nowMs < 24_000 ? 1500 : 6000);
    const s = await simulate({ limitAt }, total, { maxRate: 0, chunkEvents: 100 });
    expectExactlyOnce(s, total);
    const down = trackedAfterMs(s.sim, 1500, 12_000, 24_000);
    const up = trackedAfterMs(s.sim, 6000, 24_000, s.result.elapsedMs);
    expect(s.result.elapsedMs).toBeGreaterThan(36_000);
    console.log(`step 6000 -> 1500 tracked after ${down} ms; 1500 -> 6000 after ${up} ms; refused ${s.sim.refused}/${s.sim.requests}`);
    expect(down).toBeLessThanOrEqual(10_000);
    expect(up).toBeLessThanOrEqual(10_000);
    // And it stays there: from 10 s after each change to the next, the rate is within 20% of the limit.
    expect(acceptedRate(s.sim, 22_000, 24_000) / 1500).toBeGreaterThan(0.8);
    expect(acceptedRate(s.sim, 22_000, 24_000) / 1500).toBeLessThan(1.2);
    expect(acceptedRate(s.sim, 34_000, 36_000) / 6000).toBeGreaterThan(0.8);
  });

  it.each([
    // [seed, the drop (ms), the rise (ms)]: the rise at other moments of the hold that follows a
    // refused probe (the bench's own schedule among them), where it took up to 11 s when the hold
    // after a drop was the full 100 requests.
    [1, 8000, 30_000],
    [4, 10_000, 25_000],
    [7, 12_000, 28_000],
  ])('finds a limit that rose from 1,500 to 6,000 events/s within 8 s, wherever the hold was (seed %i, drop at %i ms, rise at %i ms)', async (seed, dropMs, riseMs) => {
    const total = 160_000;
    const limitAt = (nowMs: number) => (nowMs >= dropMs && nowMs < riseMs ? 1500 : 6000);
    const s = await simulate({ limitAt }, total, { maxRate: 0, chunkEvents: 100 }, seed);
    expectExactlyOnce(s, total);
    const down = trackedAfterMs(s.sim, 1500, dropMs, riseMs);
    const up = trackedAfterMs(s.sim, 6000, riseMs, s.result.elapsedMs);
    console.log(`seed ${seed}: 6000 -> 1500 at ${dropMs} ms tracked after ${down} ms; 1500 -> 6000 at ${riseMs} ms after ${up} ms; refused ${s.sim.refused}/${s.sim.requests}`);
    expect(s.result.elapsedMs).toBeGreaterThan(riseMs + 10_000);
    expect(down).toBeLessThanOrEqual(10_000);
    expect(up).toBeLessThanOrEqual(8000);
    expect(acceptedRate(s.sim, riseMs - 2000, riseMs) / 1500).toBeGreaterThan(0.8);
    expect(acceptedRate(s.sim, riseMs + 8000, riseMs + 10_000) / 6000).toBeGreaterThan(0.8);
  });

  it.each([0, 10_000])('keeps at least half the rate of a clean run when a fifth of requests get a 503 at random whatever the rate (--max-rate %i)', async (maxRate) => {
    // Refusals that do not depend on the rate (a flaky proxy, a failing node, PostHog's sink
    // error): cutting cannot lower them, so the pace must not fall for them. Retried at once, as
    // the import-faults test does, so the figure is the pace's alone, not the retries' waits.
    const total = 60_000;
    const status = 503;
    const clean = await simulate({ limitAt: () => Number.POSITIVE_INFINITY }, total, { maxRate, retryInitialMs: 1 });
    const s = await simulate({ limitAt: () => Number.POSITIVE_INFINITY, flaky: { share: 0.2, status } }, total, { maxRate, retryInitialMs: 1 });
    expectExactlyOnce(s, total);
    const ratio = clean.result.elapsedMs / s.result.elapsedMs;
    const lowest = Math.min(...s.paces.map(([, perSec]) => perSec));
    console.log(`random ${status}s, --max-rate ${maxRate}: ${ratio.toFixed(3)}x a clean run's rate, refused ${s.sim.refused}/${s.sim.requests}, lowest pace ${lowest.toFixed(0)}`);
    expect(ratio).toBeGreaterThanOrEqual(0.5);
  });

  it('keeps 0.9x the rate of a clean run under a ceiling of 10,000 when one request in a hundred gets a 429 at random whatever the rate', async () => {
    // A proxy throttling now and then at a server with room: at the ceiling a lone 429 is chance
    // and two close together a limit (pace-controller.ts), so these do not pull the pace down.
    // With no ceiling the figure depends on the seed: a chance pair during the slow start is
    // taken for the limit, and the probes then climb for seconds (docs/delivery.md).
    const total = 200_000;
    const given = { maxRate: 10_000, retryInitialMs: 1 };
    // Seed 13: the one of 7, 11 and 13 where a chance refusal during the start used to pull the pace down to 1,400 events/s.
    const clean = await simulate({ limitAt: () => Number.POSITIVE_INFINITY }, total, given, 13);
    const s = await simulate({ limitAt: () => Number.POSITIVE_INFINITY, flaky: { share: 0.01, status: 429 } }, total, given, 13);
    expectExactlyOnce(s, total);
    const ratio = clean.result.elapsedMs / s.result.elapsedMs;
    console.log(`random 429s (1%), --max-rate 10000: ${ratio.toFixed(3)}x a clean run's rate, refused ${s.sim.refused}/${s.sim.requests}`);
    expect(s.sim.refused).toBeGreaterThan(0);
    expect(ratio).toBeGreaterThanOrEqual(0.9);
  });

  it.each([4, 6])('keeps 0.9x the rate of a clean run with no ceiling when one request in a hundred gets a 429 at random (seed %i)', async (seed) => {
    // Seeds where two chance 429s during the slow start were taken for a limit (0.55x and 0.10x
    // of a clean run): a limit found in the start needs two refusals in a row, and one the
    // server then takes half again of is forgotten.
    const total = 200_000;
    const given = { maxRate: 0, retryInitialMs: 1 };
    const clean = await simulate({ limitAt: () => Number.POSITIVE_INFINITY }, total, given, seed);
    const s = await simulate({ limitAt: () => Number.POSITIVE_INFINITY, flaky: { share: 0.01, status: 429 } }, total, given, seed);
    expectExactlyOnce(s, total);
    const ratio = clean.result.elapsedMs / s.result.elapsedMs;
    console.log(`random 429s (1%), no ceiling, seed ${seed}: ${ratio.toFixed(3)}x a clean run's rate, refused ${s.sim.refused}/${s.sim.requests}`);
    expect(s.sim.refused).toBeGreaterThan(0);
    expect(ratio).toBeGreaterThanOrEqual(0.9);
  });

  it('reaches the ceiling within 5 s against a server with no limit', async () => {
    const total = 100_000;
    const s = await simulate({ limitAt: () => Number.POSITIVE_INFINITY }, total, { maxRate: 20_000 });
    expectExactlyOnce(s, total);
    const reached = s.paces.find(([, perSec]) => perSec >= 20_000);
    console.log(`no limit: ceiling 20000 reached after ${reached?.[0]} ms; rate ${(total / (s.result.elapsedMs / 1000)).toFixed(0)}`);
    expect(reached?.[0]).toBeLessThanOrEqual(5000);
    expect(s.sim.refused).toBe(0);
  });

  it('with no ceiling, comes within 10% of the rate of an unpaced run within 5 s against a server with no limit', async () => {
    // The slow start grows six times a second from 1,000 events/s; what it reaches with no
    // ceiling is what the run makes unpaced (here --concurrency and the answer times bound it).
    const total = 200_000;
    const unpaced = await simulate({ limitAt: () => Number.POSITIVE_INFINITY }, total, { maxRate: 1e12 });
    const fullRate = acceptedRate(unpaced.sim, 0, unpaced.result.elapsedMs);
    const s = await simulate({ limitAt: () => Number.POSITIVE_INFINITY }, total, { maxRate: 0 });
    expectExactlyOnce(s, total);
    let reachedMs = Number.POSITIVE_INFINITY;
    for (let t = 0; t + 500 <= s.result.elapsedMs && reachedMs === Number.POSITIVE_INFINITY; t += 100) if (acceptedRate(s.sim, t, t + 500) >= 0.9 * fullRate) reachedMs = t + 500;
    console.log(`no limit, no ceiling: 0.9 of the unpaced rate (${fullRate.toFixed(0)}) after ${reachedMs} ms`);
    expect(reachedMs).toBeLessThanOrEqual(5000);
    expect(s.sim.refused).toBe(0);
  });
});
