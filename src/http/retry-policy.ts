/**
 * The retry policy of every HTTP call the tool makes: capped exponential backoff with jitter,
 * at least as long as a server's Retry-After, and a bound on the wall time one request (an
 * ingestion chunk, a management call) may take from its first attempt, after which the caller
 * gives up instead of retrying forever. Pure.
 */

export interface RetryPolicy {
  /** Delay before the first retry, before jitter, in ms. Default 500. */
  initialDelayMs: number;
  /** Cap on one computed delay, in ms (a longer Retry-After is still honoured). Default 30000. */
  maxDelayMs: number;
  /**
   * The retry budget: most wall time from the request's first attempt to the start of its last
   * one, in ms, waits for answers included. A request therefore ends within this plus one
   * request timeout. Default 300000.
   */
  maxTotalWaitMs: number;
}

export interface RetryState {
  /** Retries already made for this request. */
  attempt: number;
  /** Wall time since the request's first attempt began, in ms (answers waited for included). */
  elapsedMs: number;
}

export type RetryDecision = { type: 'wait'; delayMs: number } | { type: 'give-up'; reason: string };

/**
 * Equal jitter: half of the capped exponential delay is fixed, half random. Concurrent requests
 * that failed together spread out, and no retry comes sooner than half the schedule.
 */
export function backoffDelayMs(policy: RetryPolicy, attempt: number, random: () => number): number {
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.min(attempt, 40));
  return Math.round(base / 2 + (random() * base) / 2);
}

function seconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return ms < 10_000 ? `${Math.round(ms / 100) / 10} s` : `${Math.round(ms / 1000)} s`;
}

/**
 * Whether to retry, and after how long; `retryAfterMs` is the server's Retry-After, if any. A
 * retry is made only when it starts within the budget.
 */
export function decideRetry(policy: RetryPolicy, state: RetryState, retryAfterMs: number | undefined, random: () => number): RetryDecision {
  const backoff = backoffDelayMs(policy, state.attempt, random);
  const delayMs = retryAfterMs === undefined ? backoff : Math.max(retryAfterMs, backoff);
  if (state.elapsedMs + delayMs <= policy.maxTotalWaitMs) return { type: 'wait', delayMs };
  const budget = seconds(policy.maxTotalWaitMs);
  if (retryAfterMs !== undefined && retryAfterMs > policy.maxTotalWaitMs - state.elapsedMs) {
    return { type: 'give-up', reason: `the server asked to wait ${Math.ceil(retryAfterMs / 1000)} s, beyond the retry budget of ${budget}` };
  }
  return { type: 'give-up', reason: `still failing after ${state.attempt + 1} attempts over ${seconds(state.elapsedMs)} (retry budget ${budget})` };
}
