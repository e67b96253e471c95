/**
 * Stores the group properties a piece's rows carried, in the piece's transaction: each version
 * once, and per (group, version, hour) only the first and last sighting over every file staged
 * (a sighting between them adds nothing; one beyond them takes the place of the end it passes),
 * so the observations kept are the same whatever the order or split of the files. A group whose
 * observations changed is marked for the next group pass.
 */
import { OBSERVATION_BUCKET_MS, observationBucket, observedAfter, type GroupObservation } from '../events/group-observations.js';
import { statement } from './statement-cache.js';
import type { StagingStore } from './staging-store.js';

interface Kept {
  timestampMs: number;
  uuid: Uint8Array;
}

export function recordGroupObservations(store: StagingStore, observations: readonly GroupObservation[]): void {
  const version = statement(store, 'INSERT OR IGNORE INTO group_versions (version, properties) VALUES (?, ?)');
  const kept = statement(
    store,
    `SELECT timestamp_ms AS timestampMs, uuid FROM group_observations
     WHERE type = ? AND key = ? AND timestamp_ms >= ? AND timestamp_ms < ? AND version = ? ORDER BY timestamp_ms, uuid`,
  );
  const observation = statement(store, 'INSERT OR IGNORE INTO group_observations (type, key, timestamp_ms, uuid, version) VALUES (?, ?, ?, ?, ?)');
  const drop = statement(store, 'DELETE FROM group_observations WHERE type = ? AND key = ? AND timestamp_ms = ? AND uuid = ?');
  const dirty = statement(store, 'INSERT OR IGNORE INTO group_dirty (type, key) VALUES (?, ?)');
  const type = statement(store, 'INSERT INTO observed_group_types (type, first_ms) VALUES (?, ?) ON CONFLICT (type) DO UPDATE SET first_ms = excluded.first_ms WHERE excluded.first_ms < first_ms');
  for (const o of observations) {
    version.run(o.version, o.propertiesJson);
    const start = observationBucket(o.timestampMs) * OBSERVATION_BUCKET_MS;
    const ends = kept.all(o.type, o.key, start, start + OBSERVATION_BUCKET_MS, o.version) as Kept[];
    const first = ends[0];
    const last = ends[ends.length - 1];
    // Replaced: the end it passes, when that end is not also the other one.
    let passed: Kept | undefined;
    if (first !== undefined && last !== undefined) {
      if (observedAfter(first, o)) passed = ends.length > 1 ? first : undefined;
      else if (observedAfter(o, last)) passed = ends.length > 1 ? last : undefined;
      else continue;
    }
    if (observation.run(o.type, o.key, o.timestampMs, o.uuid, o.version).changes === 0) continue;
    if (passed !== undefined) drop.run(o.type, o.key, passed.timestampMs, passed.uuid);
    dirty.run(o.type, o.key);
    type.run(o.type, o.timestampMs);
  }
}
