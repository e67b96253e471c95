/**
 * The one retry loop: send, classify the outcome, wait as the policy says (never less than the
 * server's Retry-After) on the injected clock, and try again, until an answer that is not a
 * transient failure, the budget is spent, or the signal aborts. Ingestion chunks and management
 * calls both go through it.
 */
import type { Clock } from '../util/clock.js';
import { classifyOutcome, type Endpoint, type RetryCause, type RetryVerdict, type Verdict } from './classify-outcome.js';
import type { HttpOutcome } from './http-outcome.js';
import { decideRetry, type RetryPolicy } from './retry-policy.js';

export interface RetryOptions<T = unknown> {
  policy: RetryPolicy;
  clock: Clock;
  /** Aborted: no new attempt starts and a wait ends at once. */
  signal?: AbortSignal;
  /** How statuses read: PostHog's query API says "too slow" with 512 and 504. Default: plain HTTP. */
  endpoint?: Endpoint;
  /** The transient failures to retry; any other comes back as answered. Default: all. */
  retryOn?: readonly RetryCause[];
  /** A transient failure the caller acts on itself instead of retrying (a gateway timeout on a long export range, which it splits). */
  answerAsIs?(answer: T, verdict: RetryVerdict): boolean;
  /** Runs before each attempt (a rate limit's wait); the signal is checked after it. */
  beforeAttempt?(): Promise<void>;
  /** Called with each attempt's answer and what it means (a pace learns from them). */
  onAnswer?(verdict: Verdict, answer: T): void;
  /** Called before each wait, with the failure and the delay chosen. */
  onRetry?(verdict: RetryVerdict, delayMs: number): void;
}

/** How the attempts ended: an answer to act on, a budget spent on a transient failure, or abandoned. */
export type Attempts<T> = { type: 'answered'; verdict: Verdict; answer: T } | { type: 'gave-up'; verdict: RetryVerdict; answer: T; reason: string } | { type: 'abandoned'; sent: boolean };

export async function sendWithRetry<T extends { outcome: HttpOutcome }>(send: () => Promise<T>, o: RetryOptions<T>): Promise<Attempts<T>> {
  let attempt = 0;
  // The budget is wall time from the first attempt: a server that never answers uses it up
  // through the request timeouts, not only through the waits between attempts.
  let firstAttemptMs: number | undefined;
  for (;;) {
    if (o.signal?.aborted) return { type: 'abandoned', sent: attempt > 0 };
    await o.beforeAttempt?.();
    if (o.signal?.aborted) return { type: 'abandoned', sent: attempt > 0 };
    firstAttemptMs ??= o.clock.now();
    const answer = await send();
    const verdict = classifyOutcome(answer.outcome, o.clock.now(), o.endpoint);
    o.onAnswer?.(verdict, answer);
    if (verdict.type === 'fatal' && verdict.kind === 'aborted') return { type: 'abandoned', sent: true };
    if (verdict.type !== 'retry' || (o.retryOn !== undefined && !o.retryOn.includes(verdict.cause))) return { type: 'answered', verdict, answer };
    if (o.answerAsIs?.(answer, verdict)) return { type: 'answered', verdict, answer };
    const decision = decideRetry(o.policy, { attempt, elapsedMs: o.clock.now() - firstAttemptMs }, verdict.afterMs, o.clock.random);
    if (decision.type === 'give-up') return { type: 'gave-up', verdict, answer, reason: decision.reason };
    o.onRetry?.(verdict, decision.delayMs);
    await o.clock.sleep(decision.delayMs, o.signal);
    attempt++;
  }
}
