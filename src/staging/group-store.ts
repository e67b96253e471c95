/**
 * The group updates' tables: the group properties seen on staged events (stored as the pieces
 * are written, see group-observations-store.ts), the groups to look at again, the group types
 * and when each was first seen, and the `$groupidentify` rows staged from them.
 */
import type { Statement } from '../sqlite/database.js';
import type { StagingStore } from './staging-store.js';

export interface Observation {
  timestampMs: number;
  version: Buffer;
}

export interface StagedUpdate {
  uuid: Buffer;
  timestampMs: number;
  version: Buffer;
  keptDelivered: number;
}

export interface GroupRef {
  type: string;
  key: string;
}

/**
 * Observations whose event is no longer staged (withdrawn, its read undone) are dropped, and
 * their groups looked at again.
 */
export function dropOrphanObservations(store: StagingStore): void {
  store.db.exec(`
    INSERT OR IGNORE INTO group_dirty (type, key)
      SELECT DISTINCT type, key FROM group_observations o WHERE NOT EXISTS (SELECT 1 FROM event_uuids e WHERE e.uuid = o.uuid);
    DELETE FROM group_observations WHERE NOT EXISTS (SELECT 1 FROM event_uuids e WHERE e.uuid = group_observations.uuid);
  `);
}

/** Group types by when first seen (then by name). */
export function groupTypesByAge(store: StagingStore): string[] {
  return (store.db.prepare('SELECT type FROM observed_group_types ORDER BY first_ms, type').all() as Array<{ type: string }>).map((r) => r.type);
}

/** Marks every group of these types to be looked at again (a type came in or out of the five kept). */
export function redoGroupTypes(store: StagingStore, types: readonly string[]): void {
  if (types.length === 0) return;
  store.db
    .prepare(
      `INSERT OR IGNORE INTO group_dirty (type, key)
       SELECT DISTINCT type, key FROM group_observations WHERE type IN (SELECT value FROM json_each(?))
       UNION SELECT DISTINCT type, key FROM group_updates WHERE type IN (SELECT value FROM json_each(?))`,
    )
    .run(JSON.stringify(types), JSON.stringify(types));
}

/** The statements a pass over groups uses, prepared once. */
export class GroupTables {
  private readonly nextDirty: Statement;
  private readonly observations: Statement;
  private readonly properties: Statement;
  private readonly updates: Statement;
  private readonly addUpdate: Statement;
  private readonly dropUpdate: Statement;
  private readonly keepUpdate: Statement;
  private readonly clean: Statement;

  constructor(store: StagingStore) {
    const db = store.db;
    this.nextDirty = db.prepare('SELECT type, key FROM group_dirty WHERE (type, key) > (?, ?) ORDER BY type, key LIMIT ?');
    // Only observations whose event is staged count (a conflicting row's observation does not).
    this.observations = db.prepare(
      `SELECT o.timestamp_ms AS timestampMs, o.version FROM group_observations o
       WHERE o.type = ? AND o.key = ? AND EXISTS (SELECT 1 FROM event_uuids e WHERE e.uuid = o.uuid) ORDER BY o.timestamp_ms, o.uuid`,
    );
    this.properties = db.prepare('SELECT properties FROM group_versions WHERE version = ?');
    this.updates = db.prepare('SELECT uuid, timestamp_ms AS timestampMs, version, kept_delivered AS keptDelivered FROM group_updates WHERE type = ? AND key = ?');
    this.addUpdate = db.prepare('INSERT OR REPLACE INTO group_updates (type, key, uuid, timestamp_ms, version, kept_delivered) VALUES (?, ?, ?, ?, ?, 0)');
    this.dropUpdate = db.prepare('DELETE FROM group_updates WHERE type = ? AND key = ? AND uuid = ?');
    this.keepUpdate = db.prepare('UPDATE group_updates SET kept_delivered = 1 WHERE type = ? AND key = ? AND uuid = ?');
    this.clean = db.prepare('DELETE FROM group_dirty WHERE type = ? AND key = ?');
  }

  dirty(after: GroupRef, limit: number): GroupRef[] {
    return this.nextDirty.all(after.type, after.key, limit) as GroupRef[];
  }

  /** The group's observations in time order (streamed: a group may have many). */
  observationsOf(group: GroupRef): IterableIterator<Observation> {
    return this.observations.iterate(group.type, group.key) as IterableIterator<Observation>;
  }

  propertiesOf(version: Uint8Array): string {
    return (this.properties.get(version) as { properties: string }).properties;
  }

  updatesOf(group: GroupRef): StagedUpdate[] {
    return this.updates.all(group.type, group.key) as StagedUpdate[];
  }

  recordUpdate(group: GroupRef, uuid: Uint8Array, timestampMs: number, version: Uint8Array): void {
    this.addUpdate.run(group.type, group.key, uuid, timestampMs, version);
  }

  forgetUpdate(group: GroupRef, uuid: Uint8Array): void {
    this.dropUpdate.run(group.type, group.key, uuid);
  }

  keepDeliveredUpdate(group: GroupRef, uuid: Uint8Array): void {
    this.keepUpdate.run(group.type, group.key, uuid);
  }

  done(group: GroupRef): void {
    this.clean.run(group.type, group.key);
  }
}

export interface GroupTotals {
  updates: number;
  groups: number;
  keptDelivered: number;
}

export function groupTotals(store: StagingStore): GroupTotals {
  return store.db
    .prepare(
      `SELECT count(*) AS updates, (SELECT count(*) FROM (SELECT DISTINCT type, key FROM group_updates)) AS groups,
              coalesce(sum(kept_delivered), 0) AS keptDelivered FROM group_updates`,
    )
    .get() as GroupTotals;
}
