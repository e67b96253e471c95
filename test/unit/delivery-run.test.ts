/**
 * The delivery engine against a real sandbox on 127.0.0.1, with an injected clock: every wait
 * the engine asks for is recorded and returns at once, so no test sleeps for real.
 */
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/util/clock.js';
import { chunkLimits, chunkStream, type DeliverySource, type SendCursor } from '../../src/delivery/chunk-stream.js';
import { runDelivery, type DeliveryRunOptions } from '../../src/delivery/delivery-run.js';
import { createBatchSender } from '../../src/delivery/batch-sender.js';
import { resolveSettings, type DeliverySettings } from '../../src/delivery/delivery-options.js';
import { bodyOverheadBytes, encodeEvent, type OutgoingEvent } from '../../src/delivery/event-encoding.js';
import { createHttpClient } from '../../src/http/http-client.js';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import { asIngested, sandboxTokens, storedEvents, useSandbox } from '../helpers/sandbox.js';

const T0 = Date.UTC(2024, 0, 1);

function events(n: number, over: (i: number) => Partial<OutgoingEvent> = () => ({})): OutgoingEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    seq: i + 1,
    uuid: `01900000-0000-7000-8000-${String(i + 1).padStart(12, '0')}`,
    kind: 0,
    event: 'pageview',
    distinctId: `user_${i % 7}`,
    timestampMs: T0 + i * 60_000,
    propertiesJson: `{"i":${i}}`,
    ...over(i),
  }));
}

/** Pending events in memory, in send order, paged like the staging file. */
function arraySource(all: OutgoingEvent[]): DeliverySource {
  const sorted = [...all].sort((a, b) => a.kind - b.kind || a.timestampMs - b.timestampMs || a.seq - b.seq);
  const after = (e: OutgoingEvent, c: SendCursor) => (e.kind !== c.kind ? e.kind > c.kind : e.timestampMs !== c.timestampMs ? e.timestampMs > c.timestampMs : e.seq > c.seq);
  return {
    page: (cursor, limit) =>
      sorted
        .filter((e) => cursor === undefined || after(e, cursor))
        .slice(0, limit)
        .map(encodeEvent),
  };
}

function fakeClock(graceSleep?: (signal: AbortSignal) => Promise<void>, graceMs = 1234): Clock & { waits: number[] } {
  const waits: number[] = [];
  let now = T0;
  return {
    waits,
    now: () => now,
    random: seededRandom(7),
    sleep(ms, signal) {
      if (ms === graceMs && graceSleep) return graceSleep(signal!);
      waits.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

interface Harness {
  options: DeliveryRunOptions;
  delivered: number[];
  dead: Array<{ seq: number; status: number; message: string }>;
  interrupt: AbortController;
}

function harness(sandbox: RunningSandbox, all: OutgoingEvent[], settings: Partial<DeliverySettings> = {}, clock: Clock = fakeClock(), apiKey = sandboxTokens(sandbox).test): Harness {
  const client = createHttpClient();
  const interrupt = new AbortController();
  const h: Harness = { delivered: [], dead: [], interrupt, options: undefined as unknown as DeliveryRunOptions };
  const full = { ...resolveSettings(sandbox.url, {}), interruptGraceMs: 1234, ...settings };
  const overheadBytes = bodyOverheadBytes(apiKey);
  h.options = {
    settings: full,
    overheadBytes,
    interrupt: interrupt.signal,
    chunks: chunkStream(arraySource(all), chunkLimits(full, overheadBytes)),
    sender: createBatchSender({ client, host: sandbox.url, apiKey, gzip: full.gzip, timeoutMs: 10_000, userAgent: 'test' }),
    clock,
    callbacks: {
      delivered: (seqs) => h.delivered.push(...seqs),
      deadLettered: (seqs, status, message) => h.dead.push(...seqs.map((seq) => ({ seq, status, message }))),
    },
  };
  return h;
}

describe('runDelivery', () => {
  const sandboxAt = useSandbox();

  it('delivers every event once, events before person and group updates, with the historical flag', async () => {
    const sandbox = await sandboxAt();
    const all = events(300, (i) => ({ kind: i % 10 === 0 ? 1 : i % 10 === 1 ? 2 : 0 }));
    const h = harness(sandbox, all, { chunkEvents: 20, concurrency: 4 });
    const result = await runDelivery(h.options);
    expect(result.end).toEqual({ type: 'done' });
    expect(result.stats).toMatchObject({ delivered: 300, deadLettered: 0, retries: 0 });
    expect([...h.delivered].sort((a, b) => a - b)).toEqual(all.map((e) => e.seq));
    const stored = storedEvents(sandbox, 1);
    expect(stored).toHaveLength(300);
    expect(stored.every((e) => e.historical_migration === 1 && e.endpoint === '/batch/')).toBe(true);
    const kinds = stored.map((e) => all.find((a) => a.uuid === e.uuid)!.kind);
    expect(kinds).toEqual([...kinds].sort((a, b) => a - b));
    const first = all[5]!;
    const copy = stored.find((e) => e.uuid === first.uuid)!;
    expect(copy).toMatchObject({ event: 'pageview', distinct_id: first.distinctId, timestamp: new Date(first.timestampMs).toISOString() });
    expect(JSON.parse(copy.properties)).toEqual(asIngested(JSON.parse(first.propertiesJson) as Record<string, unknown>));
  });

  it('splits chunks the server finds too large (413) until they fit', async () => {
    const sandbox = await sandboxAt({ capture: { maxBodyBytes: 3000 } });
    const h = harness(sandbox, events(120), { chunkEvents: 100, gzip: true });
    const result = await runDelivery(h.options);
    expect(result.end.type).toBe('done');
    expect(storedEvents(sandbox, 1)).toHaveLength(120);
    expect(sandbox.capture.stats.answers['413']).toBeGreaterThan(0);
    expect(h.dead).toEqual([]);
  });

  it('bisects a rejected chunk: the bad events are dead-lettered with the message, the rest delivered', async () => {
    const sandbox = await sandboxAt();
    const all = events(64, (i) => (i === 17 || i === 50 ? { distinctId: '' } : {}));
    const h = harness(sandbox, all, { chunkEvents: 64 });
    const result = await runDelivery(h.options);
    expect(result.end.type).toBe('done');
    expect(h.dead.map((d) => d.seq)).toEqual([18, 51]);
    expect(h.dead[0]).toMatchObject({ status: 400, message: 'event submitted without a distinct_id (missing_distinct_id)' });
    expect(storedEvents(sandbox, 1)).toHaveLength(62);
    expect(result.stats.requests).toBeLessThan(30);
  });

  it('stops at once on a refused key, with nothing delivered', async () => {
    const sandbox = await sandboxAt();
    const h = harness(sandbox, events(50), { chunkEvents: 10 }, fakeClock(), 'phc_not_a_sandbox_token_at_all');
    const result = await runDelivery(h.options);
    expect(result.end).toMatchObject({ type: 'stopped', reason: { kind: 'auth', status: 401 } });
    expect(h.delivered).toEqual([]);
    expect(storedEvents(sandbox, 1)).toHaveLength(0);
  });

  it('retries transient failures and honours Retry-After', async () => {
    const sandbox = await sandboxAt({ capture: { faults: { error500: 0.2, error503: 0.1, error429RetryAfter: 0.1, retryAfterSeconds: 7, drop: 0.05, loseAnswer: 0.05 }, random: seededRandom(3) } });
    const clock = fakeClock();
    const h = harness(sandbox, events(400), { chunkEvents: 10 }, clock);
    const result = await runDelivery(h.options);
    expect(result.end.type).toBe('done');
    expect(result.stats.retries).toBeGreaterThan(10);
    expect(clock.waits.filter((w) => w >= 7000).length).toBeGreaterThan(0);
    const stored = storedEvents(sandbox, 1);
    expect(new Set(stored.map((e) => e.uuid)).size).toBe(400);
    expect(stored.length).toBeGreaterThan(400); // lost answers: stored, re-sent, same content
  });

  it('stops (resumable) when the retry budget is spent', async () => {
    const sandbox = await sandboxAt({ capture: { faults: { error503: 1 } } });
    const clock = fakeClock();
    const h = harness(sandbox, events(30), { chunkEvents: 10, retryInitialMs: 100, retryMaxDelayMs: 1000, retryBudgetMs: 5000 }, clock);
    const result = await runDelivery(h.options);
    expect(result.end).toMatchObject({ type: 'stopped', reason: { kind: 'exhausted' } });
    expect(h.delivered).toEqual([]);
    expect(Math.max(...clock.waits)).toBeLessThanOrEqual(1000);
  });

  it('keeps under --max-rate, its ceiling, by waiting, not by sending less', async () => {
    const sandbox = await sandboxAt();
    const clock = fakeClock();
    const h = harness(
      sandbox,
      events(3000, (i) => ({ timestampMs: T0 + i })),
      { chunkEvents: 500, maxRate: 1000, concurrency: 1 },
      clock,
    );
    const result = await runDelivery(h.options);
    expect(result.stats.delivered).toBe(3000);
    // Six chunks of 500 at most 1,000 events/s: the sixth goes 2.5 s after the first at the
    // earliest. The pace starts at a quarter of the ceiling and climbs, so a little later.
    const waitedMs = clock.waits.reduce((a, b) => a + b, 0);
    expect(waitedMs).toBeGreaterThanOrEqual(2500);
    expect(waitedMs).toBeLessThan(4000);
  });

  it('sends at most maxEvents (import --sample)', async () => {
    const sandbox = await sandboxAt();
    const all = events(100);
    const h = harness(sandbox, all, { chunkEvents: 30 });
    h.options.chunks = chunkStream(arraySource(all), chunkLimits(h.options.settings, h.options.overheadBytes), 45);
    const result = await runDelivery(h.options);
    expect(result.end.type).toBe('done');
    expect(h.delivered.sort((a, b) => a - b)).toEqual(Array.from({ length: 45 }, (_, i) => i + 1));
  });

  it('on interrupt starts no new chunk and lets chunks in flight finish', async () => {
    let requests = 0;
    let interrupt: AbortController | undefined;
    const sandbox = await sandboxAt({ capture: { onRequest: () => ++requests === 3 && interrupt?.abort() } });
    const never = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    const h = harness(sandbox, events(200), { chunkEvents: 10, concurrency: 2 }, fakeClock(never));
    interrupt = h.interrupt;
    const result = await runDelivery(h.options);
    expect(result.end).toEqual({ type: 'interrupted' });
    expect(result.stats.abandoned).toBe(0);
    expect(h.delivered.length).toBeGreaterThanOrEqual(30);
    expect(h.delivered.length).toBeLessThan(200);
    expect(storedEvents(sandbox, 1)).toHaveLength(h.delivered.length);
  });

  it('abandons chunks still in flight when the grace period ends', async () => {
    let release: (() => void) | undefined;
    const hang = new Promise<void>((resolve) => (release = resolve));
    const sandbox = await sandboxAt({ capture: { faults: { slow: 1, slowMs: 50 }, sleep: () => hang } });
    const h = harness(
      sandbox,
      events(40),
      { chunkEvents: 10, concurrency: 2 },
      fakeClock(() => Promise.resolve()),
    );
    setImmediate(() => h.interrupt.abort());
    const result = await runDelivery(h.options);
    release!();
    expect(result.end).toEqual({ type: 'interrupted' });
    expect(result.stats.abandoned).toBeGreaterThan(0);
    expect(h.delivered).toEqual([]);
  });
});
