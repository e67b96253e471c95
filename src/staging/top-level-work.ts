/**
 * Work kept out of savepoints. For each open savepoint SQLite keeps a copy of every page of the
 * file changed since it opened (to go back to it), and with `temp_store = MEMORY`, chosen for
 * the writer's many small savepoints, that copy is in memory. A uuid merge rewrites most pages
 * of a table that grows with the file: inside a savepoint it held a copy of that table for as
 * long as the merge took (54 MB for 500,000 keys merged into 2,000,000; about 400 MB at twenty
 * million rows). Outside any savepoint it holds nothing: the transaction's pages go to the
 * write-ahead log. The staging store counts the savepoints it opens; work asked for inside one
 * runs as soon as the last is released, still in the enclosing transaction.
 */
export class TopLevelWork {
  private savepoints = 0;
  /** By key: work asked for twice before it could run runs once. */
  private waiting = new Map<unknown, () => void>();

  /** Runs `work` now when no savepoint is open, or else once the last one is released. */
  whenTopLevel(key: unknown, work: () => void): void {
    if (this.savepoints === 0) work();
    else this.waiting.set(key, work);
  }

  /** Runs `open`, which opens a savepoint and releases or undoes it before it returns. */
  inSavepoint<T>(open: () => T): T {
    this.savepoints++;
    let value: T;
    try {
      value = open();
    } catch (error) {
      this.left(false);
      throw error;
    }
    this.left(true);
    return value;
  }

  /** inSavepoint for a savepoint held across awaits (only one write runs at a time). */
  async inSavepointAsync<T>(open: () => Promise<T>): Promise<T> {
    this.savepoints++;
    let value: T;
    try {
      value = await open();
    } catch (error) {
      this.left(false);
      throw error;
    }
    this.left(true);
    return value;
  }

  /**
   * A savepoint closed: at the top again, the waiting work runs, unless the savepoint was undone
   * (the work is dropped then: what it was for was undone too, and it is asked for again).
   */
  private left(released: boolean): void {
    this.savepoints--;
    if (this.savepoints > 0) return;
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    if (released) for (const work of waiting) work();
  }
}
