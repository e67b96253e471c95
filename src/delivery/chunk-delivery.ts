/**
 * One chunk's journey: send, retry what is transient (bounded), split what is too large,
 * bisect what was rejected until the bad events stand alone, then record the outcome. Every
 * decision comes from classifyOutcome and decideRetry; this module only acts on them.
 */
import { decideRetry, type RetryPolicy } from './backoff.js';
import type { SendChunk } from './batch-sender.js';
import { splitChunk, type Chunk } from './chunker.js';
import { classifyOutcome, type Verdict } from './classify-outcome.js';
import type { RateLimiter } from './rate-limiter.js';

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** In [0, 1), for jitter. */
  random(): number;
}

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

type Attempted = { verdict: Verdict; wireBytes: number } | { verdict: 'abandoned'; sent: boolean } | { verdict: 'exhausted'; reason: string };

async function attemptUntilSettled(chunk: Chunk, ctx: ChunkContext): Promise<Attempted> {
  const state = { attempt: 0, waitedMs: 0 };
  for (;;) {
    if (ctx.abandon.aborted) return { verdict: 'abandoned', sent: state.attempt > 0 };
    const rateWaitMs = ctx.limiter.reserve(chunk.seqs.length, ctx.clock.now());
    if (rateWaitMs > 0) await ctx.clock.sleep(rateWaitMs, ctx.abandon);
    if (ctx.abandon.aborted) return { verdict: 'abandoned', sent: state.attempt > 0 };
    ctx.onRequest();
    const { outcome, wireBytes } = await ctx.send(chunk, ctx.requests);
    const verdict = classifyOutcome(outcome, ctx.clock.now());
    if (verdict.type === 'fatal' && verdict.kind === 'aborted') return { verdict: 'abandoned', sent: true };
    if (verdict.type !== 'retry') return { verdict, wireBytes };
    const decision = decideRetry(ctx.policy, state, verdict.afterMs, ctx.clock.random);
    if (decision.type === 'give-up') return { verdict: 'exhausted', reason: `${decision.reason}; last: ${verdict.reason}` };
    ctx.onRetry(verdict.reason, decision.delayMs);
    await ctx.clock.sleep(decision.delayMs, ctx.abandon);
    state.attempt++;
    state.waitedMs += decision.delayMs;
  }
}

/** Delivers a chunk, its halves, or dead-letters its lone refused events. Never throws for HTTP. */
export async function deliverChunk(chunk: Chunk, ctx: ChunkContext): Promise<ChunkEnd> {
  const attempted = await attemptUntilSettled(chunk, ctx);
  if (attempted.verdict === 'abandoned') {
    ctx.onAbandoned(chunk, attempted.sent);
    return { type: 'abandoned' };
  }
  if (attempted.verdict === 'exhausted') return { type: 'stop', reason: { kind: 'exhausted', message: attempted.reason } };
  const verdict = attempted.verdict;
  switch (verdict.type) {
    case 'ok':
      ctx.onDelivered(chunk, attempted.wireBytes);
      return { type: 'settled' };
    case 'fatal':
      if (verdict.kind === 'aborted') return { type: 'abandoned' }; // handled above; narrows the type
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
      throw new Error('unreachable: retries are handled above');
  }
}
