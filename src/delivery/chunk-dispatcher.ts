/**
 * Runs chunk tasks with p-limit: events `concurrency` at a time, person and group updates one at
 * a time (the last `$set` processed wins, so their order matters). A change of kind waits for
 * everything in flight, so each kind goes only once the one before it is settled (see
 * send-order.ts). Read-ahead is bounded, so memory stays flat whatever the staging file's size.
 * The events' concurrency follows `slots` (the pace's), asked at each submit, up to `concurrency`.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import { InFlight } from '../util/in-flight.js';

export class ChunkDispatcher {
  private readonly inFlight = new InFlight();
  private readonly eventsLimit: LimitFunction;
  private readonly updatesLimit: LimitFunction = pLimit(1);
  private kind: number | undefined;

  constructor(
    concurrency: number,
    private readonly slots: () => number = () => concurrency,
  ) {
    this.eventsLimit = pLimit(Math.max(1, concurrency));
  }

  /** Queues a task; waits first while too many are queued. `task` must not reject. */
  async submit(kind: number, task: () => Promise<void>): Promise<void> {
    if (this.kind !== undefined && kind !== this.kind) await this.drain();
    this.kind = kind;
    if (kind === 0) this.eventsLimit.concurrency = Math.max(1, this.slots());
    const limit = kind === 0 ? this.eventsLimit : this.updatesLimit;
    await this.inFlight.below(limit.concurrency * 2);
    this.inFlight.add(limit(task));
  }

  /** Resolves when every queued task has ended. */
  drain(): Promise<void> {
    return this.inFlight.drain();
  }
}
