/**
 * A simulated /batch/ endpoint on a virtual clock, for pace simulations: it takes at most
 * `limitAt(now)` events in any one-second window (a request that would pass it is answered 429
 * without Retry-After, as PostHog's capture answers an overload), answers after a latency that
 * grows with the request's events, and records what it accepted, to check nothing is lost or
 * accepted twice.
 */
import type { SendChunk } from '../../src/delivery/batch-sender.js';
import type { Chunk } from '../../src/delivery/chunker.js';
import type { Clock } from '../../src/util/clock.js';

export interface SimulatedCapture {
  send: SendChunk;
  requests: number;
  refused: number;
  /** Seqs accepted, in order (a seq twice is a duplicate). */
  accepted: number[];
  /** When each refused request arrived. */
  refusedAtMs: number[];
  /** Accepted requests: when and how many events. */
  log: Array<{ atMs: number; events: number }>;
}

export interface CaptureModel {
  /** Events per second the server takes at `nowMs`; Infinity for no limit. */
  limitAt(nowMs: number): number;
  /** Answer time of a request of `events`, in ms, before jitter. Default 20 + events / 100. */
  latencyMs?(events: number): number;
  /** Share of requests refused at random whatever the rate (a flaky proxy, a failing node), and with what. */
  flaky?: { share: number; status: 429 | 503 };
}

const OK = Buffer.from('{"status":"Ok"}');
const THROTTLED = Buffer.from('{"status":429,"code":"rate_limited","error":"rate limited"}');
const UNAVAILABLE = Buffer.from('{"status":503,"code":"service_unavailable","error":"sink error"}');
const WINDOW_MS = 1000;

export function simulatedCapture(clock: Clock, model: CaptureModel): SimulatedCapture {
  const window: Array<{ atMs: number; events: number }> = [];
  const latency = model.latencyMs ?? ((events: number) => 20 + events / 100);
  const sim: SimulatedCapture = {
    requests: 0,
    refused: 0,
    accepted: [],
    refusedAtMs: [],
    log: [],
    async send(chunk: Chunk) {
      sim.requests++;
      const half = (latency(chunk.seqs.length) * (0.8 + 0.4 * clock.random())) / 2;
      await clock.sleep(half);
      const nowMs = clock.now();
      while (window.length > 0 && window[0]!.atMs <= nowMs - WINDOW_MS) window.shift();
      const inWindow = window.reduce((sum, w) => sum + w.events, 0);
      const flaky = model.flaky !== undefined && clock.random() < model.flaky.share;
      const ok = !flaky && inWindow + chunk.seqs.length <= model.limitAt(nowMs);
      if (ok) {
        window.push({ atMs: nowMs, events: chunk.seqs.length });
        sim.accepted.push(...chunk.seqs);
        sim.log.push({ atMs: nowMs, events: chunk.seqs.length });
      } else {
        sim.refused++;
        sim.refusedAtMs.push(nowMs);
      }
      await clock.sleep(half);
      const status = ok ? 200 : flaky ? model.flaky!.status : 429;
      const body = ok ? OK : status === 503 ? UNAVAILABLE : THROTTLED;
      return { outcome: { type: 'response', status, headers: { 'content-type': 'application/json' }, body }, wireBytes: body.length };
    },
  };
  return sim;
}

/** Chunks of `perChunk` events (seqs 1..total), small bodies: the simulation sends no real JSON. */
export function simulatedChunks(total: number, perChunk: number): Chunk[] {
  const chunks: Chunk[] = [];
  for (let first = 1; first <= total; first += perChunk) {
    const seqs = Array.from({ length: Math.min(perChunk, total - first + 1) }, (_, i) => first + i);
    const eventsJson = Buffer.from(seqs.map(() => '{}').join(','));
    chunks.push({ kind: 0, seqs, eventsJson, ends: seqs.map((_, i) => i * 3 + 2), bytes: eventsJson.length + 100 });
  }
  return chunks;
}

/** Events accepted in [fromMs, toMs), per second. */
export function acceptedRate(sim: SimulatedCapture, fromMs: number, toMs: number): number {
  const events = sim.log.filter((l) => l.atMs >= fromMs && l.atMs < toMs).reduce((sum, l) => sum + l.events, 0);
  return (events * 1000) / (toMs - fromMs);
}
