/**
 * Stores the group properties a piece's rows carried, in the piece's transaction: each version
 * once, each observation once (a file staged again adds nothing new), and the groups marked for
 * the next group pass.
 */
import type { GroupObservation } from '../events/group-observations.js';
import { statement } from './statement-cache.js';
import type { StagingStore } from './staging-store.js';

export function recordGroupObservations(store: StagingStore, observations: readonly GroupObservation[]): void {
  const version = statement(store, 'INSERT OR IGNORE INTO group_versions (version, properties) VALUES (?, ?)');
  const observation = statement(store, 'INSERT OR IGNORE INTO group_observations (type, key, timestamp_ms, uuid, version) VALUES (?, ?, ?, ?, ?)');
  const dirty = statement(store, 'INSERT OR IGNORE INTO group_dirty (type, key) VALUES (?, ?)');
  const type = statement(store, 'INSERT INTO observed_group_types (type, first_ms) VALUES (?, ?) ON CONFLICT (type) DO UPDATE SET first_ms = excluded.first_ms WHERE excluded.first_ms < first_ms');
  for (const o of observations) {
    version.run(o.version, o.propertiesJson);
    if (observation.run(o.type, o.key, o.timestampMs, o.uuid, o.version).changes === 0) continue;
    dirty.run(o.type, o.key);
    type.run(o.type, o.timestampMs);
  }
}
