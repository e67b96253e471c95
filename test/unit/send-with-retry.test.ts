/** The one retry loop, driven by a scripted list of outcomes and a clock that never sleeps. */
import { describe, expect, it } from 'vitest';
import type { HttpOutcome } from '../../src/http/http-outcome.js';
import { sendWithRetry, type RetryOptions } from '../../src/http/send-with-retry.js';
import { testClock } from '../helpers/test-clock.js';

const POLICY = { initialDelayMs: 100, maxDelayMs: 1000, maxTotalWaitMs: 10_000 };

function status(code: number, headers: Record<string, string> = {}): HttpOutcome {
  return { type: 'response', status: code, headers, body: Buffer.from('{"detail":"x"}') };
}

/** Sends the scripted outcomes in turn; the last one repeats. */
function scripted(outcomes: HttpOutcome[]): { send: () => Promise<{ outcome: HttpOutcome }>; sent: () => number } {
  let sent = 0;
  return { send: async () => ({ outcome: outcomes[Math.min(sent++, outcomes.length - 1)]! }), sent: () => sent };
}

describe('sendWithRetry', () => {
  it.each<[string, HttpOutcome[], Partial<RetryOptions>, { type: string; sends: number; waits: number[] }]>([
    ['an answer at once', [status(200)], {}, { type: 'answered', sends: 1, waits: [] }],
    ['a 503 then ok: backoff with equal jitter', [status(503), status(503), status(200)], {}, { type: 'answered', sends: 3, waits: [50, 100] }],
    ['Retry-After is a floor', [status(429, { 'retry-after': '3' }), status(200)], {}, { type: 'answered', sends: 2, waits: [3000] }],
    ['a refusal is not retried', [status(400)], {}, { type: 'answered', sends: 1, waits: [] }],
    ['a cause not retried comes back answered', [status(503)], { retryOn: ['throttled'] }, { type: 'answered', sends: 1, waits: [] }],
    ['a network error is retried by default', [{ type: 'network-error', code: 'ECONNRESET', message: 'reset' }, status(200)], {}, { type: 'answered', sends: 2, waits: [50] }],
    ['the budget runs out', [status(429, { 'retry-after': '4' })], {}, { type: 'gave-up', sends: 3, waits: [4000, 4000] }],
    ['an aborted request is abandoned', [{ type: 'aborted' }], {}, { type: 'abandoned', sends: 1, waits: [] }],
  ])('%s', async (_name, outcomes, options, expected) => {
    const clock = testClock();
    const { send, sent } = scripted(outcomes);
    const attempts = await sendWithRetry(send, { policy: POLICY, clock, ...options });
    expect({ type: attempts.type, sends: sent(), waits: clock.waits }).toEqual(expected);
  });

  it('spends the budget on time waiting for answers too: a host that never answers stops within budget + one timeout', async () => {
    const clock = testClock();
    const timeoutMs = 3000;
    const policy = { initialDelayMs: 500, maxDelayMs: 30_000, maxTotalWaitMs: 6000 };
    const started = clock.now();
    let sends = 0;
    // Each attempt hangs until its timeout: the clock moves by the timeout, as it would for real.
    const attempts = await sendWithRetry(
      async () => {
        sends++;
        await clock.sleep(timeoutMs);
        return { outcome: { type: 'timeout', afterMs: timeoutMs } as HttpOutcome };
      },
      { policy, clock },
    );
    expect(attempts.type).toBe('gave-up');
    expect(clock.now() - started).toBeLessThanOrEqual(policy.maxTotalWaitMs + timeoutMs);
    expect(sends).toBe(2);
  });

  it('says why it gave up and keeps the last answer', async () => {
    const { send } = scripted([status(503)]);
    const attempts = await sendWithRetry(send, { policy: { ...POLICY, maxTotalWaitMs: 0 }, clock: testClock() });
    expect(attempts).toMatchObject({ type: 'gave-up', verdict: { cause: 'unavailable', reason: 'HTTP 503: x' }, reason: expect.stringContaining('budget') });
  });

  it('starts no attempt once the signal aborted, and tells whether one was sent', async () => {
    const abort = new AbortController();
    abort.abort();
    const { send, sent } = scripted([status(200)]);
    expect(await sendWithRetry(send, { policy: POLICY, clock: testClock(), signal: abort.signal })).toEqual({ type: 'abandoned', sent: false });
    expect(sent()).toBe(0);
  });

  it('runs beforeAttempt before every attempt and reports each retry', async () => {
    const order: string[] = [];
    const { send } = scripted([status(500), status(200)]);
    await sendWithRetry(
      async () => {
        order.push('send');
        return send();
      },
      { policy: POLICY, clock: testClock(), beforeAttempt: async () => void order.push('before'), onRetry: (verdict, ms) => order.push(`retry ${verdict.cause} ${ms}`) },
    );
    expect(order).toEqual(['before', 'send', 'retry unavailable 50', 'before', 'send']);
  });
});
