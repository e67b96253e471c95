/**
 * S3 calls through the project's one retry loop and clock: a throttled (SlowDown, 503), failed
 * (500) or dropped call is tried again as every HTTP call is, and one that still fails ends the
 * command with an error in words (bucket-errors.ts).
 */
import { sendWithRetry } from '../http/send-with-retry.js';
import type { HttpOutcome } from '../http/http-outcome.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import type { Clock } from '../util/clock.js';
import { bucketError, type BucketAction } from './bucket-errors.js';
import type { S3Calls, S3Failure, S3Result } from './s3-client.js';

/** Waits between tries of one S3 call: S3 asks for backoff on SlowDown; a few minutes in all. */
export const BUCKET_RETRY_POLICY: RetryPolicy = { initialDelayMs: 500, maxDelayMs: 20_000, maxTotalWaitMs: 300_000 };

export interface BucketContext {
  calls: S3Calls;
  clock: Clock;
  policy: RetryPolicy;
  /** Where the calls go, for messages: the endpoint, or `AWS S3`. */
  endpoint: string;
  signal?: AbortSignal;
  /** Told of each retry, in words. */
  onRetry?: (text: string) => void;
}

/** A failure as the outcome the project's classifier judges (S3's XML body is not read: its code is enough). */
export function failureOutcome(failure: S3Failure): HttpOutcome {
  switch (failure.kind) {
    case 'answer':
      return { type: 'response', status: failure.status ?? 500, headers: {}, body: Buffer.from(`${failure.code}: ${failure.message}`) };
    case 'network':
    case 'setup':
      return { type: 'network-error', code: failure.code, message: failure.message };
    case 'timeout':
      return { type: 'timeout', afterMs: 0 };
    case 'aborted':
      return { type: 'aborted' };
  }
}

const OK: HttpOutcome = { type: 'response', status: 200, headers: {}, body: Buffer.alloc(0) };

/** The call's value, tried again while it fails transiently; else the error that ends the command. */
export async function withRetries<T>(context: BucketContext, action: BucketAction, call: () => Promise<S3Result<T>>): Promise<T> {
  const attempts = await sendWithRetry(
    async () => {
      const result = await call();
      return { result, outcome: result.ok ? OK : failureOutcome(result.failure) };
    },
    {
      policy: context.policy,
      clock: context.clock,
      signal: context.signal,
      // No request was made (no credentials): the same attempt again would fail the same way.
      answerAsIs: ({ result }) => !result.ok && result.failure.kind === 'setup',
      onRetry: (verdict, delayMs) => context.onRetry?.(`${action.url}: ${verdict.reason}; trying again in ${Math.round(delayMs)} ms`),
    },
  );
  if (attempts.type === 'abandoned') throw bucketError({ status: undefined, code: 'Aborted', message: '', kind: 'aborted' }, action, context.endpoint);
  const { result } = attempts.answer;
  if (result.ok) return result.value;
  throw bucketError(result.failure, action, context.endpoint);
}
