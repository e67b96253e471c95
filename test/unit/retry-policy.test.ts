import { describe, expect, it } from 'vitest';
import { backoffDelayMs, decideRetry, type RetryPolicy } from '../../src/http/retry-policy.js';

const POLICY: RetryPolicy = { initialDelayMs: 500, maxDelayMs: 30_000, maxTotalWaitMs: 60_000 };
const low = () => 0;
const high = () => 0.999999;

describe('backoffDelayMs (equal jitter, capped)', () => {
  it.each([
    [0, low, 250],
    [0, high, 500],
    [1, low, 500],
    [1, high, 1000],
    [3, low, 2000],
    [6, high, 30_000],
    [20, low, 15_000],
    [1000, high, 30_000],
  ])('attempt %i', (attempt, random, expected) => {
    expect(backoffDelayMs(POLICY, attempt, random)).toBe(expected);
  });
});

describe('decideRetry', () => {
  it.each([
    ['backoff when no Retry-After', { attempt: 0, elapsedMs: 0 }, undefined, { type: 'wait', delayMs: 250 }],
    ['Retry-After longer than backoff wins', { attempt: 0, elapsedMs: 0 }, 5000, { type: 'wait', delayMs: 5000 }],
    ['backoff longer than Retry-After wins', { attempt: 4, elapsedMs: 0 }, 1000, { type: 'wait', delayMs: 4000 }],
    ['Retry-After above the delay cap is honoured', { attempt: 0, elapsedMs: 0 }, 45_000, { type: 'wait', delayMs: 45_000 }],
    ['exactly at the budget still waits', { attempt: 0, elapsedMs: 59_750 }, undefined, { type: 'wait', delayMs: 250 }],
    ['over the budget gives up', { attempt: 9, elapsedMs: 59_000 }, undefined, { type: 'give-up' }],
    ['Retry-After beyond the budget gives up', { attempt: 0, elapsedMs: 0 }, 120_000, { type: 'give-up' }],
  ] as const)('%s', (_name, state, retryAfter, expected) => {
    expect(decideRetry(POLICY, state, retryAfter, low)).toMatchObject(expected);
  });

  it('says why it gave up', () => {
    const decision = decideRetry(POLICY, { attempt: 0, elapsedMs: 0 }, 120_000, low);
    expect(decision).toEqual({ type: 'give-up', reason: 'the server asked to wait 120 s, beyond the retry budget of 60 s' });
  });

  it('counts the wall time of the attempts, not only the waits', () => {
    // Three attempts that each hung for 20 s used up a 60 s budget with under 2 s of waiting.
    expect(decideRetry(POLICY, { attempt: 2, elapsedMs: 60_000 }, undefined, low)).toEqual({
      type: 'give-up',
      reason: 'still failing after 3 attempts over 60 s (retry budget 60 s)',
    });
  });

  it('stops after a bounded total wait whatever the random draws', () => {
    let state = { attempt: 0, elapsedMs: 0 };
    let random = 0.37;
    for (;;) {
      random = (random * 7.3) % 1;
      const decision = decideRetry(POLICY, state, undefined, () => random);
      if (decision.type === 'give-up') break;
      state = { attempt: state.attempt + 1, elapsedMs: state.elapsedMs + decision.delayMs };
    }
    expect(state.elapsedMs).toBeLessThanOrEqual(POLICY.maxTotalWaitMs);
    expect(state.attempt).toBeGreaterThan(3);
  });
});
