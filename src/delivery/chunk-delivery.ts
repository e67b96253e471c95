/**
 * One chunk's journey: send (through the shared retry loop, which retries what is transient
 * within the budget), split what is too large, bisect what was rejected until the bad events
 * stand alone, then record the outcome. Every decision comes from the HTTP classifier and the
 * retry policy; this module only acts on them.
 */
import type { RetryPolicy } from '../http/retry-policy.js';
import { sendWithRetry, type Attempts } from '../http/send-with-retry.js';
import type { Clock } from '../util/clock.js';
import type { SendChunk, SendResult } from './batch-sender.js';
import { splitChunk, type Chunk } from './chunker.js';
import type { RateLimiter } from './rate-limiter.js';

/** Why a run must stop: credentials refused, no endpoint, or the retry budget spent. */
export interface StopReason {
  kind: 'auth' | 'endpoint' | 'exhausted';
  status?: number;
  message: string;
}

export type ChunkEnd = { type: 'settled' } | { type: 'abandoned' } | { type: 'stop'; reason: StopReason };

export interface ChunkContext {
  send: SendChunk;
  clock: Clock;
  policy: RetryPolicy;
  limiter: RateLimiter;
  overheadBytes: number;
  /** Aborted: start no new attempt and end waits at once (interrupt or stop). */
  abandon: AbortSignal;
  /** Aborted: cut requests in flight (stop, or the interrupt grace ran out). */
  requests: AbortSignal;
  onDelivered(chunk: Chunk, wireBytes: number): void;
  /** A chunk of one event refused for good. */
  onDeadLetter(chunk: Chunk, status: number, message: string): void;
  onRetry(reason: string, delayMs: number): void;
  onSplit(chunk: Chunk, reason: string): void;
  onRequest(): void;
  /** A chunk given up after an interrupt or a stop; `sent` when a request for it went out. */
  onAbandoned(chunk: Chunk, sent: boolean): void;
}

function attempt(chunk: Chunk, ctx: ChunkContext): Promise<Attempts<SendResult>> {
  return sendWithRetry(
    () => {
      ctx.onRequest();
      return ctx.send(chunk, ctx.requests);
    },
    {
      policy: ctx.policy,
      clock: ctx.clock,
      signal: ctx.abandon,
      beforeAttempt: async () => {
        const rateWaitMs = ctx.limiter.reserve(chunk.seqs.length, ctx.clock.now());
        if (rateWaitMs > 0) await ctx.clock.sleep(rateWaitMs, ctx.abandon);
      },
      onRetry: (verdict, delayMs) => ctx.onRetry(verdict.reason, delayMs),
    },
  );
}

/** Delivers a chunk, its halves, or dead-letters its lone refused events. Never throws for HTTP. */
export async function deliverChunk(chunk: Chunk, ctx: ChunkContext): Promise<ChunkEnd> {
  const attempted = await attempt(chunk, ctx);
  if (attempted.type === 'abandoned') {
    ctx.onAbandoned(chunk, attempted.sent);
    return { type: 'abandoned' };
  }
  if (attempted.type === 'gave-up') return { type: 'stop', reason: { kind: 'exhausted', message: `${attempted.reason}; last: ${attempted.verdict.reason}` } };
  const verdict = attempted.verdict;
  switch (verdict.type) {
    case 'ok':
      ctx.onDelivered(chunk, attempted.answer.wireBytes);
      return { type: 'settled' };
    case 'fatal':
      if (verdict.kind === 'aborted') return { type: 'abandoned' }; // the retry loop returns these as abandoned; narrows the type
      return { type: 'stop', reason: { kind: verdict.kind, status: verdict.status, message: verdict.message } };
    case 'too-large':
    case 'rejected': {
      const status = verdict.type === 'too-large' ? 413 : verdict.status;
      const message = verdict.type === 'too-large' ? verdict.reason : verdict.message;
      if (chunk.seqs.length === 1) {
        ctx.onDeadLetter(chunk, status, message);
        return { type: 'settled' };
      }
      ctx.onSplit(chunk, `HTTP ${status}: ${message}`);
      for (const half of splitChunk(chunk, ctx.overheadBytes)) {
        const end = await deliverChunk(half, ctx);
        if (end.type !== 'settled') return end;
      }
      return { type: 'settled' };
    }
    case 'retry':
      throw new Error('unreachable: every transient failure is retried until the loop gives up');
  }
}
