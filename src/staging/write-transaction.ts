/**
 * The staging writer's transactions: one per write, which may await (a piece whose conflicts
 * need their raw text read again), or one that consecutive writes share, each write then a
 * savepoint of it, undone alone when it fails. A commit writes every page the transaction
 * touched: thousands of small files each committed on their own spent more on commits than
 * on their rows (see piece-pool.ts). Only one write runs at a time (pieces are written in file
 * order), so nothing else uses the connection meanwhile.
 */
import type { Database, Statement } from '../sqlite/database.js';
import type { TopLevelWork } from './top-level-work.js';

export class WriteTransaction {
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollbackAll: Statement;
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly rollback: Statement;

  constructor(
    private readonly db: Database,
    private readonly topLevel: TopLevelWork,
  ) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollbackAll = db.prepare('ROLLBACK');
    this.savepoint = db.prepare('SAVEPOINT piece');
    this.release = db.prepare('RELEASE piece');
    this.rollback = db.prepare('ROLLBACK TO piece');
  }

  /** Runs `work` in a transaction of its own, or in a savepoint of the shared one when it is open. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.db.inTransaction) return this.topLevel.inSavepointAsync(() => this.inSavepoint(work));
    this.begin.run();
    try {
      const value = await work();
      this.commit.run();
      return value;
    } catch (error) {
      if (this.db.inTransaction) this.rollbackAll.run();
      throw error;
    }
  }

  private async inSavepoint<T>(work: () => Promise<T>): Promise<T> {
    this.savepoint.run();
    try {
      const value = await work();
      this.release.run();
      return value;
    } catch (error) {
      this.rollback.run();
      this.release.run();
      throw error;
    }
  }

  /** Opens the transaction the next writes share; no-op when one is open. */
  openShared(): void {
    if (!this.db.inTransaction) this.begin.run();
  }

  /** Commits the shared transaction, if one is open. */
  commitShared(): void {
    if (this.db.inTransaction) this.commit.run();
  }
}
