/**
 * Which uuid is staged as which row: the one place a row's uuid is claimed and looked up.
 *
 * `events` keeps no index on uuid (a file made before schema 18 keeps its old UNIQUE one, a
 * safety net that is never hit). The mapping is two tables: `uuid_keys`, permanent, written
 * only by merges in key order, and `uuid_recent`, the uuids staged since the last merge, small
 * enough to stay in the page cache. A random uuid written row by row into one large index
 * dirties a page of its own per row; here it dirties a page of the small table, and a merge
 * writes each page of the large one once. The view `event_uuids` reads both. A row deleted from
 * `events` leaves the mapping by a trigger, whichever statement deleted it.
 */
import type { Statement } from '../sqlite/database.js';
import type { StagingStore } from './staging-store.js';
import { statement } from './statement-cache.js';

/**
 * Rows in `uuid_recent` past which a batch's transaction ends with a merge. At 25 bytes a key,
 * 256k keys are about 7 MB: they stay in the 16 MiB page cache beside the writer's other pages.
 */
export const RECENT_BOUND_ROWS = 256 * 1024;

/**
 * Rows uuid_merged may hold before it goes into uuid_keys: the geometric mean of uuid_keys and
 * a recent table's bound (and at least the bound). A merge of recent rows rewrites at most
 * every page of uuid_merged, one into uuid_keys every page of uuid_keys; this size balances
 * the two, so the pages written per staged row grow with the square root of the file's rows
 * rather than with its rows.
 */
export function mergedBoundRows(keysRows: number, recentBoundRows: number): number {
  return Math.max(recentBoundRows, Math.sqrt(keysRows * recentBoundRows));
}

/** A staging file's uuid to seq mapping (see the top of this file). */
export interface UuidKeys {
  /** The seq of the row staged with `uuid`, if any. */
  seqOf(uuid: Uint8Array): number | undefined;
  /** The next seq a new row takes (the one SQLite would give it). */
  nextSeq(): number;
  /** Records `uuid` as staged with `seq`; false when it is staged already (nothing written). */
  claim(uuid: Uint8Array, seq: number): boolean;
  /**
   * Records `rows` uuids as staged with seqs from `firstSeq` on, in one statement per check;
   * false (and nothing written) when any is staged already or repeated among them.
   */
  claimGroup(rows: number, uuidAt: (i: number) => Uint8Array, firstSeq: number): boolean;
  /**
   * Merges the recent uuids into the permanent table once they pass `boundRows`; true when it
   * did or will (inside a savepoint it waits for the last to be released).
   */
  settle(): boolean;
  /** Merges the recent uuids into the permanent table, in key order, whatever their number (inside a savepoint: once it is released). */
  merge(): void;
  /** Rows since the last merge past which `settle` merges (RECENT_BOUND_ROWS; tests set a few). */
  boundRows: number;
}

const byStore = new WeakMap<StagingStore, StoreUuidKeys>();

/** The store's uuid mapping (one per store, so the count of recent rows is shared). */
export function uuidKeys(store: StagingStore): UuidKeys {
  let keys = byStore.get(store);
  if (keys === undefined) byStore.set(store, (keys = new StoreUuidKeys(store)));
  return keys;
}

/**
 * Stages one row through the mapping: `insert(seq)` writes the row with that seq, once the uuid
 * is claimed. Returns the seq, or undefined (nothing written) when the uuid is staged already.
 */
export function stageWithUuid(store: StagingStore, uuid: Uint8Array, insert: (seq: number) => void): number | undefined {
  const keys = uuidKeys(store);
  const seq = keys.nextSeq();
  if (!keys.claim(uuid, seq)) return undefined;
  insert(seq);
  return seq;
}

/** Moves every recent uuid into the permanent table, in key order (end of a read). */
export function mergeRecentUuids(store: StagingStore): void {
  uuidKeys(store).merge();
}

class StoreUuidKeys implements UuidKeys {
  private readonly lookup: Statement;
  private readonly maxSeq: Statement;
  private readonly insertRecent: Statement;
  private readonly groups = new Map<number, { find: Statement; insert: Statement; findParams: unknown[]; insertParams: unknown[] }>();
  boundRows = RECENT_BOUND_ROWS;
  /** Rows in uuid_recent as far as this connection knows (read once, then counted). */
  private recentRows: number | undefined;

  constructor(private readonly store: StagingStore) {
    this.lookup = statement(store, 'SELECT seq FROM event_uuids WHERE uuid = ?').pluck();
    this.maxSeq = statement(store, 'SELECT coalesce(max(seq), 0) FROM events').pluck();
    this.insertRecent = statement(
      store,
      `INSERT INTO uuid_recent (uuid, seq) SELECT @uuid, @seq
       WHERE NOT EXISTS (SELECT 1 FROM uuid_keys WHERE uuid = @uuid) AND NOT EXISTS (SELECT 1 FROM uuid_merged WHERE uuid = @uuid) ON CONFLICT DO NOTHING`,
    );
  }

  seqOf(uuid: Uint8Array): number | undefined {
    return this.lookup.get(uuid) as number | undefined;
  }

  nextSeq(): number {
    return (this.maxSeq.get() as number) + 1;
  }

  claim(uuid: Uint8Array, seq: number): boolean {
    if (this.insertRecent.run({ uuid, seq }).changes !== 1) return false;
    this.counted(1);
    return true;
  }

  claimGroup(rows: number, uuidAt: (i: number) => Uint8Array, firstSeq: number): boolean {
    const group = this.group(rows);
    for (let i = 0; i < rows; i++) {
      const uuid = uuidAt(i);
      group.findParams[i] = uuid;
      group.findParams[rows + i] = uuid;
      group.insertParams[2 * i] = uuid;
      group.insertParams[2 * i + 1] = firstSeq + i;
    }
    if (group.find.get(group.findParams) !== undefined) return false;
    if (group.insert.run(group.insertParams).changes !== rows) return false;
    this.counted(rows);
    return true;
  }

  settle(): boolean {
    if (this.counted(0) <= this.boundRows) return false;
    this.merge();
    return true;
  }

  // Never inside a savepoint (see top-level-work.ts): a merge rewrites most pages of tables that
  // grow with the file, and a savepoint would hold a copy of each in memory. Asked for inside
  // one, it runs once the last is released, in the same transaction; asked for outside any
  // transaction, in one of its own, so the rows are never in two tables at once.
  merge(): void {
    this.store.topLevel.whenTopLevel(this, () => {
      if (this.store.db.inTransaction) this.mergeNow();
      else this.store.transaction(() => this.mergeNow());
    });
  }

  // OR ROLLBACK: a merge runs inside the batch's transaction, where a plain INSERT ... SELECT keeps
  // a statement journal (in memory, temp_store) of every page it rewrites (measured alone: 100 MB
  // for 500k keys merged into 4M). The keys are disjoint by construction (every uuid is claimed
  // against all three tables), so a conflict is a fault that must undo it all.
  private mergeNow(): void {
    const db = this.store.db;
    const moved = db.prepare('INSERT OR ROLLBACK INTO uuid_merged (uuid, seq) SELECT uuid, seq FROM uuid_recent ORDER BY uuid').run().changes;
    db.exec('DELETE FROM uuid_recent');
    this.recentRows = 0;
    const counts = db.prepare('UPDATE uuid_key_counts SET merged_rows = merged_rows + ? RETURNING merged_rows AS merged, keys_rows AS keys').get(moved) as { merged: number; keys: number };
    if (counts.merged <= mergedBoundRows(counts.keys, this.boundRows)) return;
    db.exec('INSERT OR ROLLBACK INTO uuid_keys (uuid, seq) SELECT uuid, seq FROM uuid_merged ORDER BY uuid; DELETE FROM uuid_merged;');
    db.prepare('UPDATE uuid_key_counts SET merged_rows = 0, keys_rows = keys_rows + ?').run(counts.merged);
  }

  /** Adds `rows` to the count of recent rows and returns it. */
  private counted(rows: number): number {
    this.recentRows ??= this.store.db.prepare('SELECT count(*) FROM uuid_recent').pluck().get() as number;
    this.recentRows += rows;
    return this.recentRows;
  }

  private group(rows: number): { find: Statement; insert: Statement; findParams: unknown[]; insertParams: unknown[] } {
    let group = this.groups.get(rows);
    if (group === undefined) {
      const marks = new Array(rows).fill('?').join(', ');
      const pairs = new Array(rows).fill('(?, ?)').join(', ');
      group = {
        find: statement(this.store, `SELECT 1 FROM uuid_keys WHERE uuid IN (${marks}) UNION ALL SELECT 1 FROM uuid_merged WHERE uuid IN (${marks}) LIMIT 1`).pluck(),
        // A uuid repeated within the group, or claimed since the last merge, makes changes fall short.
        insert: statement(this.store, `INSERT INTO uuid_recent (uuid, seq) VALUES ${pairs} ON CONFLICT DO NOTHING`),
        findParams: new Array(rows * 2),
        insertParams: new Array(rows * 2),
      };
      this.groups.set(rows, group);
    }
    return group;
  }
}
