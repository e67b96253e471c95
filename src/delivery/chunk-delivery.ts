/**
 * One chunk's journey: cut to the size the host takes, send (through the shared retry loop,
 * which retries what is transient within the budget), check that the answer is PostHog's
 * acknowledgement, split what is too large, bisect what was refused until the refused events
 * stand alone, then record the outcome. A chunk's refused events are recorded as dead letters
 * only once the whole chunk is settled, and only when the refusals look like bad events rather
 * than a server refusing everything: every event refused with the same answer, or more than
 * the run's allowance, stops the run with the events still pending.
 */
import type { RetryPolicy } from '../http/retry-policy.js';
import { sendWithRetry, type Attempts } from '../http/send-with-retry.js';
import type { Clock } from '../util/clock.js';
import { count, plural } from '../util/format.js';
import type { SendChunk, SendResult } from './batch-sender.js';
import { leadingPiece, splitChunk, type Chunk } from './chunker.js';
import { describeAnswer, foreignAnswer, isAcknowledgement, refusalMeaning, type ForeignAnswer } from './ingestion-answer.js';
import { congestionOf, waitForPace } from './delivery-pace.js';
import type { PaceController, PaceTicket } from './pace-controller.js';
import type { RefusalGuard } from './refusal-guard.js';
import type { SizeGovernor } from './size-governor.js';

/**
 * Why a run must stop: credentials refused, no endpoint, the retry budget spent, an answer
 * that is not PostHog's (`foreign`), or events refused beyond what bad events explain.
 */
export interface StopReason {
  kind: 'auth' | 'endpoint' | 'exhausted' | 'foreign' | 'refused';
  status?: number;
  message: string;
  /** What came back, for `foreign`. */
  answer?: ForeignAnswer;
}

export type ChunkEnd = { type: 'settled' } | { type: 'abandoned' } | { type: 'stop'; reason: StopReason };

/** An event refused alone for good: a one-event chunk, with the server's status and message. */
export interface Refusal {
  chunk: Chunk;
  status: number;
  message: string;
}

export interface ChunkContext {
  send: SendChunk;
  clock: Clock;
  policy: RetryPolicy;
  /** The run's pace, shared by every request. */
  pace: PaceController;
  overheadBytes: number;
  /** The body size this host takes, learned from its answers (shared by the run). */
  sizes: SizeGovernor;
  /** The run's allowance of dead letters (shared by the run). */
  refusals: RefusalGuard;
  /** Aborted: start no new attempt and end waits at once (interrupt or stop). */
  abandon: AbortSignal;
  /** Aborted: cut requests in flight (stop, or the interrupt grace ran out). */
  requests: AbortSignal;
  onDelivered(chunk: Chunk, wireBytes: number): void;
  /** Events refused for good, each alone; called once per chunk, after all of it settled. */
  onDeadLetters(refusals: readonly Refusal[]): void;
  onRetry(reason: string, delayMs: number): void;
  /** A request the server refused for load (429, 503 with Retry-After) or did not answer in time. */
  onCongestion(): void;
  onSplit(chunk: Chunk, reason: string): void;
  onRequest(): void;
  /** A chunk given up after an interrupt or a stop; `sent` when a request for it went out. */
  onAbandoned(chunk: Chunk, sent: boolean): void;
}

/** What happened to one chunk's events so far. */
interface ChunkTally {
  delivered: number;
  refused: Refusal[];
}

const SETTLED: ChunkEnd = { type: 'settled' };

function attempt(chunk: Chunk, ctx: ChunkContext): Promise<Attempts<SendResult>> {
  const events = chunk.seqs.length;
  let ticket: PaceTicket | undefined;
  let sentAtMs = 0;
  return sendWithRetry(
    () => {
      ctx.onRequest();
      sentAtMs = ctx.clock.now();
      return ctx.send(chunk, ctx.requests);
    },
    {
      policy: ctx.policy,
      clock: ctx.clock,
      signal: ctx.abandon,
      beforeAttempt: async () => {
        ticket = await waitForPace(ctx.pace, events, ctx.clock, ctx.abandon);
      },
      onAnswer: (verdict, answer) => {
        const nowMs = ctx.clock.now();
        const congestion = congestionOf(verdict, answer.outcome);
        if (congestion !== undefined) {
          ctx.onCongestion();
          ctx.pace.congested(congestion, ticket!, nowMs);
        } else if (verdict.type === 'ok') ctx.pace.accepted(ticket!, events, nowMs - sentAtMs, nowMs);
      },
      onRetry: (verdict, delayMs) => ctx.onRetry(verdict.reason, delayMs),
    },
  );
}

/** Delivers a chunk, in pieces the host takes; records its lone refused events at the end. Never throws for HTTP. */
export async function deliverChunk(chunk: Chunk, ctx: ChunkContext): Promise<ChunkEnd> {
  const tally: ChunkTally = { delivered: 0, refused: [] };
  const end = await deliverPieces(chunk, ctx, tally);
  if (end.type !== 'settled') {
    ctx.refusals.release(tally.refused.length); // not recorded: still pending
    return end;
  }
  if (tally.refused.length === 0) return SETTLED;
  const first = tally.refused[0]!;
  if (tally.delivered === 0 && chunk.seqs.length > 1 && tally.refused.every((r) => r.status === first.status && r.message === first.message)) {
    ctx.refusals.release(tally.refused.length);
    return stop('refused', `every one of the ${count(chunk.seqs.length)} events of a chunk was refused with the same answer (HTTP ${first.status}: ${first.message})`, first.status);
  }
  ctx.onDeadLetters(tally.refused);
  return SETTLED;
}

/** Sends `chunk` as pieces no larger than the host takes, each cut when its turn comes. */
async function deliverPieces(chunk: Chunk, ctx: ChunkContext, tally: ChunkTally): Promise<ChunkEnd> {
  let rest: Chunk | undefined = chunk;
  while (rest !== undefined) {
    const [piece, after]: [Chunk, Chunk | undefined] = leadingPiece(rest, ctx.sizes.targetBytes(), ctx.overheadBytes);
    const end = await deliverPiece(piece, ctx, tally);
    if (end.type !== 'settled') return end;
    rest = after;
  }
  return SETTLED;
}

function stop(kind: StopReason['kind'], message: string, status?: number, answer?: ForeignAnswer): ChunkEnd {
  return { type: 'stop', reason: { kind, status, message, answer } };
}

async function deliverPiece(piece: Chunk, ctx: ChunkContext, tally: ChunkTally): Promise<ChunkEnd> {
  const attempted = await attempt(piece, ctx);
  if (attempted.type === 'abandoned') {
    ctx.onAbandoned(piece, attempted.sent);
    return { type: 'abandoned' };
  }
  if (attempted.type === 'gave-up') return stop('exhausted', `${attempted.reason}; last: ${attempted.verdict.reason}`);
  const { verdict } = attempted;
  const outcome = attempted.answer.outcome;
  const response = outcome.type === 'response' ? outcome : undefined;
  switch (verdict.type) {
    case 'ok': {
      if (response === undefined || !isAcknowledgement(response.body)) {
        const answer = foreignAnswer(verdict.status, response?.headers ?? {}, response?.body ?? Buffer.alloc(0));
        return stop('foreign', `the answer is not PostHog's acknowledgement (${describeAnswer(answer)})`, verdict.status, answer);
      }
      ctx.sizes.accepted(piece.bytes);
      ctx.onDelivered(piece, attempted.answer.wireBytes);
      tally.delivered += piece.seqs.length;
      return SETTLED;
    }
    case 'fatal':
      if (verdict.kind === 'aborted') return { type: 'abandoned' }; // the retry loop returns these as abandoned; narrows the type
      return stop(verdict.kind, verdict.message, verdict.status);
    case 'too-large':
      return tooLarge(piece, 413, verdict.reason.replace(/^HTTP 413: /, ''), ctx, tally);
    case 'rejected': {
      const meaning = refusalMeaning(verdict.status, response?.headers ?? {}, response?.body ?? Buffer.alloc(0));
      if (meaning.type === 'foreign') return stop('foreign', `the refusal is not one of PostHog's error answers (${describeAnswer(meaning.answer)})`, verdict.status, meaning.answer);
      if (meaning.type === 'too-large') return tooLarge(piece, verdict.status, verdict.message, ctx, tally);
      return bisect(piece, verdict.status, verdict.message, ctx, tally);
    }
    case 'retry':
      throw new Error('unreachable: every transient failure is retried until the loop gives up');
    case 'too-slow':
      throw new Error('unreachable: only the query API answers "too slow"; /batch/ 5xx are retried');
  }
}

/** A body the host found too large: learn the size, then send the events in smaller pieces. */
async function tooLarge(piece: Chunk, status: number, message: string, ctx: ChunkContext, tally: ChunkTally): Promise<ChunkEnd> {
  ctx.sizes.refused(piece.bytes);
  if (piece.seqs.length === 1) return refuse(piece, status, message, ctx, tally);
  ctx.onSplit(piece, `HTTP ${status}: ${message}`);
  // Never larger than half: the size learned may be stale when requests ran side by side.
  const [first, second] = splitChunk(piece, ctx.overheadBytes);
  for (const half of [first, second]) {
    const end = await deliverPieces(half, ctx, tally);
    if (end.type !== 'settled') return end;
  }
  return SETTLED;
}

/** A refused body: halves until the refused events stand alone. */
async function bisect(piece: Chunk, status: number, message: string, ctx: ChunkContext, tally: ChunkTally): Promise<ChunkEnd> {
  if (piece.seqs.length === 1) return refuse(piece, status, message, ctx, tally);
  ctx.onSplit(piece, `HTTP ${status}: ${message}`);
  for (const half of splitChunk(piece, ctx.overheadBytes)) {
    const end = await deliverPiece(half, ctx, tally);
    if (end.type !== 'settled') return end;
  }
  return SETTLED;
}

function refuse(piece: Chunk, status: number, message: string, ctx: ChunkContext, tally: ChunkTally): ChunkEnd {
  if (!ctx.refusals.admit(1)) {
    ctx.refusals.release(1);
    return stop('refused', `the server refused more than ${plural(ctx.refusals.allowance, 'event')} of this run one by one (the last: HTTP ${status}: ${message})`, status);
  }
  tally.refused.push({ chunk: piece, status, message });
  return SETTLED;
}
