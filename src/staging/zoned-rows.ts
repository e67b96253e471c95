/**
 * The rows whose time a zone option decided (a time without a zone read with --timezone, a
 * Mixpanel project zone), keyed on the row as the source wrote it. A copy of a file read with
 * another zone gives its rows other derived uuids (their time bits differ) but the same keys:
 * that is how the same rows are kept from becoming two sets of events hours apart. Only such
 * rows enter the table, so files whose times carry their zone pay nothing for it.
 */
import type { Statement } from '../sqlite/database.js';
import type { StagingStore } from './staging-store.js';

/** What the key of a zoned row says about the uuid it comes with. */
export type ZoneClaim =
  /** First seen, or seen before with this same uuid, or its earlier uuid is no longer staged. */
  | { type: 'ok' }
  /** Staged earlier under another uuid, still staged. */
  | { type: 'other'; uuid: Buffer };

export class ZonedRows {
  private readonly insertIfAbsent: Statement;
  /** Statements and their parameters for groups of each size the writer inserts. */
  private readonly groups = new Map<number, { insert: Statement; params: unknown[] }>();
  private readonly find: Statement;
  private readonly replace: Statement;
  private readonly staged: Statement;

  constructor(store: StagingStore, groupSizes: readonly number[]) {
    const db = store.db;
    this.insertIfAbsent = db.prepare('INSERT INTO zoned_rows (key, uuid) VALUES (?, ?) ON CONFLICT (key) DO NOTHING');
    for (const rows of groupSizes) {
      const insert = db.prepare(`INSERT INTO zoned_rows (key, uuid) VALUES ${new Array(rows).fill('(?, ?)').join(', ')} ON CONFLICT (key) DO NOTHING`);
      this.groups.set(rows, { insert, params: new Array(rows * 2) });
    }
    this.find = db.prepare('SELECT uuid FROM zoned_rows WHERE key = ?').pluck();
    this.replace = db.prepare('UPDATE zoned_rows SET uuid = ? WHERE key = ?');
    this.staged = db.prepare('SELECT 1 FROM event_uuids WHERE uuid = ?').pluck();
  }

  /** Records a new key; false when the key is known already (then `claim` decides). */
  addIfNew(key: Uint8Array, uuid: Uint8Array): boolean {
    return this.insertIfAbsent.run(key, uuid).changes === 1;
  }

  /** Records `rows` new keys at once (keys and uuids as 16-byte views; `rows` one of the group sizes); false when any is known already. */
  addGroupIfNew(rows: number, keys: (i: number) => Uint8Array, uuids: (i: number) => Uint8Array): boolean {
    const group = this.groups.get(rows)!;
    for (let i = 0; i < rows; i++) {
      group.params[2 * i] = keys(i);
      group.params[2 * i + 1] = uuids(i);
    }
    return group.insert.run(group.params).changes === rows;
  }

  /**
   * Records that this row is staged with `uuid`, unless it is staged under another uuid. A key
   * whose uuid was withdrawn or undone since is taken over (keys are cleaned up lazily, here).
   */
  claim(key: Uint8Array, uuid: Uint8Array): ZoneClaim {
    const known = this.find.get(key) as Buffer | undefined;
    if (known === undefined) {
      this.insertIfAbsent.run(key, uuid);
      return { type: 'ok' };
    }
    if (Buffer.compare(known, uuid) === 0) return { type: 'ok' };
    if (this.staged.get(known) === undefined) {
      this.replace.run(uuid, key);
      return { type: 'ok' };
    }
    return { type: 'other', uuid: known };
  }

  /** Points a key at a new uuid (the earlier version was replaced). */
  takeOver(key: Uint8Array, uuid: Uint8Array): void {
    this.replace.run(uuid, key);
  }
}
