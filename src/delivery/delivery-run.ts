/**
 * A delivery run: chunks taken in send order as request slots free, sent by the dispatcher,
 * each outcome checkpointed by the caller's callbacks. Stops at the end, at the
 * first stop reason (credentials, endpoint, retry budget), or on interrupt: then no new chunk
 * starts and chunks in flight get `interruptGraceMs` to finish before they are abandoned
 * (abandoned chunks are simply still pending: re-sent later with the same content).
 */
import { eventJsonAt, type Chunk } from './chunker.js';
import type { Clock } from '../util/clock.js';
import { count } from '../util/format.js';
import { deliverChunk, type ChunkContext } from './chunk-delivery.js';
import { RefusalGuard } from './refusal-guard.js';
import { SizeGovernor } from './size-governor.js';
import { ChunkDispatcher } from './chunk-dispatcher.js';
import { retryPolicy, type DeliverySettings } from './delivery-options.js';
import { uuidOfEventJson } from './event-encoding.js';
import type { BatchSender } from './batch-sender.js';
import { deliveryPace } from './delivery-pace.js';
import type { PaceController, PaceHold } from './pace-controller.js';
import { RunControl, type DeliveryEnd } from './run-control.js';

export interface DeliveryCallbacks {
  /** Record a 2xx: called once per accepted (sub-)chunk, with exactly its events' seqs. */
  delivered(seqs: readonly number[]): void;
  /** Record events refused for good, each alone, with the server's status and message. */
  deadLettered(seqs: readonly number[], status: number, message: string): void;
  /** Progress after any change of the counters. */
  progress?(stats: DeliveryStats): void;
  /** A line worth showing (a split, a dead letter, the first retry of a kind). */
  notice?(text: string): void;
}

export interface DeliveryStats {
  delivered: number;
  deadLettered: number;
  retries: number;
  requests: number;
  chunks: number;
  wireBytes: number;
  /** Events whose request was cut after an interrupt or a stop (still pending, re-sent later). */
  abandoned: number;
  /** Requests the server refused for load (429, 503 with Retry-After) or did not answer in time. */
  refused: number;
  /** Time chunks spent waiting to retry, summed over chunks (they wait side by side), in ms. */
  retryWaitMs: number;
  /** The pace as the last change left it: events per second (Infinity when unpaced) and what holds it. */
  pace: { perSec: number; hold: PaceHold };
  startedMs: number;
}

export interface DeliveryRunOptions {
  settings: DeliverySettings;
  overheadBytes: number;
  interrupt: AbortSignal;
  /** The chunks to send, in send order (see chunk-stream.ts); pulled as request slots free. */
  chunks: Iterable<Chunk> | AsyncIterable<Chunk>;
  sender: BatchSender;
  clock: Clock;
  callbacks: DeliveryCallbacks;
  /** The pace to book requests on (tests pass one with other bounds). Default: deliveryPace(settings). */
  pace?: PaceController;
  /** Most events the run may dead-letter before it stops (see refusal-guard.ts). Default: settings.maxDeadLetters. */
  deadLetterAllowance?: number;
}

export type { DeliveryEnd } from './run-control.js';

export interface DeliveryResult {
  end: DeliveryEnd;
  stats: DeliveryStats;
  elapsedMs: number;
}

/** Dead letters named one by one on stderr; the rest are counted in the summary. */
const DEAD_LETTER_NOTICES = 10;

function chunkContext(o: DeliveryRunOptions, stats: DeliveryStats, pace: PaceController, signals: { abandon: AbortSignal; requests: AbortSignal }): ChunkContext {
  const seenRetryReasons = new Set<string>();
  const progress = (): void => {
    const nowMs = o.clock.now();
    stats.pace = { perSec: pace.rate(nowMs), hold: pace.heldBy(nowMs) };
    o.callbacks.progress?.(stats);
  };
  return {
    send: o.sender.send,
    clock: o.clock,
    policy: retryPolicy(o.settings),
    pace,
    overheadBytes: o.overheadBytes,
    sizes: new SizeGovernor(),
    refusals: new RefusalGuard(o.deadLetterAllowance ?? o.settings.maxDeadLetters),
    ...signals,
    onRequest: () => void stats.requests++,
    onDelivered(chunk, wireBytes) {
      o.callbacks.delivered(chunk.seqs);
      stats.delivered += chunk.seqs.length;
      stats.chunks++;
      stats.wireBytes += wireBytes;
      progress();
    },
    onDeadLetters(refusals) {
      for (const { chunk, status, message } of refusals) {
        o.callbacks.deadLettered(chunk.seqs, status, message);
        stats.deadLettered += chunk.seqs.length;
        if (stats.deadLettered <= DEAD_LETTER_NOTICES) {
          o.callbacks.notice?.(`dead letter: event ${uuidOfEventJson(eventJsonAt(chunk, 0))} refused by the server (HTTP ${status}: ${message})`);
        } else if (stats.deadLettered === DEAD_LETTER_NOTICES + 1) {
          o.callbacks.notice?.('more dead letters: counted in the summary, listed by `migrate status`');
        }
      }
      progress();
    },
    onCongestion: () => void stats.refused++,
    onRetry(reason, delayMs) {
      stats.retries++;
      stats.retryWaitMs += delayMs;
      const kind = reason.split(':')[0]!;
      if (!seenRetryReasons.has(kind)) {
        seenRetryReasons.add(kind);
        o.callbacks.notice?.(`retrying after ${reason} (waiting ${delayMs} ms; later retries are counted in the progress line)`);
      }
      progress();
    },
    onAbandoned(chunk, sent) {
      if (sent) stats.abandoned += chunk.seqs.length;
    },
    onSplit(chunk, reason) {
      o.callbacks.notice?.(`split a chunk of ${count(chunk.seqs.length)} events after ${reason}`);
    },
  };
}

export async function runDelivery(o: DeliveryRunOptions): Promise<DeliveryResult> {
  const pace = o.pace ?? deliveryPace(o.settings);
  const startedMs = o.clock.now();
  const stats: DeliveryStats = {
    ...{ delivered: 0, deadLettered: 0, retries: 0, requests: 0, chunks: 0, wireBytes: 0, abandoned: 0, refused: 0, retryWaitMs: 0 },
    pace: { perSec: pace.rate(startedMs), hold: pace.heldBy(startedMs) },
    startedMs,
  };
  const control = new RunControl(o.interrupt, o.clock, o.settings.interruptGraceMs);
  const ctx = chunkContext(o, stats, pace, { abandon: control.abandon, requests: control.requests });
  // Concurrency follows the pace: as many requests in flight as the pace fills during one answer's time.
  const dispatcher = new ChunkDispatcher(o.settings.concurrency, () => pace.slots(o.settings.concurrency, o.clock.now()));
  let exhausted = true;
  try {
    for await (const chunk of o.chunks) {
      if (control.abandon.aborted) {
        exhausted = false;
        break;
      }
      // Compressing starts when a chunk is queued, not when its request slot frees: zlib needs
      // the main thread between pieces, and a body begun late waits behind other work while
      // the server idles.
      o.sender.prepare(chunk);
      await dispatcher.submit(
        chunk.kind,
        () =>
          deliverChunk(chunk, ctx).then(
            (end) => control.settle(end),
            (error: unknown) => control.fail(error),
          ),
        chunk.persons,
      );
    }
  } catch (error) {
    control.fail(error); // reading the staging file failed: stop the chunks in flight too
  }
  await dispatcher.drain();
  const end = control.finish(exhausted);
  return { end, stats, elapsedMs: o.clock.now() - stats.startedMs };
}
