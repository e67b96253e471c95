/**
 * Runs chunk tasks with p-limit: events `concurrency` at a time, person and group updates one at
 * a time (the last `$set` processed wins, so their order matters). A change of kind waits for
 * everything in flight, so each kind goes only once the one before it is settled (see
 * send-order.ts). Read-ahead is bounded, so memory stays flat whatever the staging file's size.
 * The events' concurrency follows `slots` (the pace's), asked at each submit, up to `concurrency`.
 *
 * Events of one person stay in send order where it matters: a chunk that shares a person with
 * an earlier chunk still unsettled (retries included), when either changes that person, waits
 * for it to settle before it starts (see chunk-persons.ts). Chunks behind it wait too, so chunks
 * still start in send order.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import { InFlight } from '../util/in-flight.js';
import { mustFollow, type ChunkPersons } from './chunk-persons.js';

/** A chunk submitted and not yet settled, with the persons it touches. */
interface Unsettled {
  all: ReadonlySet<number>;
  changed: ReadonlySet<number>;
  settled: Promise<unknown>;
}

export class ChunkDispatcher {
  private readonly inFlight = new InFlight();
  private readonly eventsLimit: LimitFunction;
  private readonly updatesLimit: LimitFunction = pLimit(1);
  private kind: number | undefined;
  private readonly unsettled = new Set<Unsettled>();
  /** Chunks that waited for an earlier one sharing a person. */
  held = 0;

  constructor(
    concurrency: number,
    private readonly slots: () => number = () => concurrency,
  ) {
    this.eventsLimit = pLimit(Math.max(1, concurrency));
  }

  /** Queues a task; waits first while too many are queued, or while an earlier chunk shares `persons` (see above). `task` must not reject. */
  async submit(kind: number, task: () => Promise<void>, persons?: ChunkPersons): Promise<void> {
    if (this.kind !== undefined && kind !== this.kind) await this.drain();
    this.kind = kind;
    if (kind === 0) this.eventsLimit.concurrency = Math.max(1, this.slots());
    const limit = kind === 0 ? this.eventsLimit : this.updatesLimit;
    await this.inFlight.below(limit.concurrency * 2);
    if (persons !== undefined) await this.afterSharing(persons);
    const running = limit(task);
    this.inFlight.add(running);
    if (persons !== undefined) this.track(persons, running);
  }

  /** Resolves when every queued task has ended. */
  drain(): Promise<void> {
    return this.inFlight.drain();
  }

  private async afterSharing(persons: ChunkPersons): Promise<void> {
    let waited = false;
    for (;;) {
      const earlier = [...this.unsettled].find((u) => mustFollow(persons, u));
      if (earlier === undefined) break;
      waited = true;
      await earlier.settled;
      this.unsettled.delete(earlier);
    }
    if (waited) this.held++;
  }

  private track(persons: ChunkPersons, running: Promise<void>): void {
    const entry: Unsettled = { all: new Set(persons.all), changed: new Set(persons.changed), settled: running };
    this.unsettled.add(entry);
    void running.finally(() => this.unsettled.delete(entry));
  }
}
