/**
 * Tasks in flight: a bound on how many run at once, and a wait for all of them. Shared by the
 * staging dispatcher (pieces) and the delivery dispatcher (chunks). Tasks must not reject:
 * callers turn failures into values before adding them.
 */
export class InFlight {
  private readonly running = new Set<Promise<unknown>>();

  get size(): number {
    return this.running.size;
  }

  /** Tracks `task` until it settles. */
  add(task: Promise<unknown>): void {
    const tracked: Promise<unknown> = task.finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  /** Resolves once fewer than `limit` tasks are in flight. */
  async below(limit: number): Promise<void> {
    while (this.running.size >= limit) await Promise.race(this.running);
  }

  /** Resolves once every task has ended. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }
}
