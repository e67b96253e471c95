/**
 * Re-assertions: the users file's `$set` values sent again after the events. Person updates go
 * before the events (so each event is stored with its person's properties), but events from
 * Mixpanel or Amplitude carry `$set`s of their own, often older values, and in PostHog the last
 * `$set` processed wins. For each person update with a `$set` whose person has such events (by
 * its distinct_id or an id linked to it by `$anon_distinct_id`), one `$set` event (kind 3) is
 * staged: the same `$set`, the same time, a uuid derived from the update's uuid (so staging
 * them again stages nothing). Made by import in one transaction, from the small table of
 * distinct_ids with event `$set`s (set_ids): no event's properties are read.
 */
import { deriveUuidBytes, uuidText } from '../events/stable-uuid.js';
import { EventKind } from '../events/staged-event.js';
import { readImportRunId } from './import-run-id.js';
import type { StagingStore } from './staging-store.js';
import { withdrawQueried } from './withdrawals.js';
import { propertiesSql } from './property-blocks.js';
import { stageWithUuid } from './uuid-keys.js';

export interface ReassertionCount {
  /** Re-assertions in the staging file now. */
  total: number;
  /** Made by this call. */
  added: number;
  /** Withdrawn by this call: their person update is no longer staged as it was. */
  removed: number;
}

/** The name of the re-asserting event: PostHog's event that only sets person properties. */
export const REASSERT_EVENT = '$set';

interface Candidate {
  seq: number;
  uuid: Buffer;
  distinctId: string;
  timestampMs: number;
  set: string;
  source: string | null;
  run: string | null;
}

/** The ids whose person has events with their own `$set`: set_ids, and every id linked to one. */
function touchedIds(store: StagingStore): void {
  const db = store.db;
  db.exec(`
    CREATE TEMP TABLE IF NOT EXISTS reassert_links (a TEXT NOT NULL, b TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS temp.reassert_links_a ON reassert_links (a);
    CREATE INDEX IF NOT EXISTS temp.reassert_links_b ON reassert_links (b);
    CREATE TEMP TABLE IF NOT EXISTS reassert_ids (id TEXT PRIMARY KEY) WITHOUT ROWID;
    DELETE FROM reassert_links; DELETE FROM reassert_ids;
    INSERT INTO reassert_links (a, b)
      SELECT distinct_id, CAST(json_extract(${propertiesSql('properties')}, '$."$anon_distinct_id"') AS TEXT) FROM events
      WHERE kind = ${EventKind.person} AND json_extract(${propertiesSql('properties')}, '$."$anon_distinct_id"') IS NOT NULL;
    INSERT INTO reassert_ids (id) SELECT distinct_id FROM set_ids;
  `);
  const spread = db.prepare(
    `INSERT OR IGNORE INTO reassert_ids (id)
     SELECT l.a FROM reassert_links l JOIN reassert_ids t ON t.id = l.b UNION SELECT l.b FROM reassert_links l JOIN reassert_ids t ON t.id = l.a`,
  );
  while (spread.run().changes > 0);
}

function candidates(store: StagingStore): Candidate[] {
  const E = propertiesSql('e.properties');
  return store.db
    .prepare(
      `SELECT e.seq, e.uuid, e.distinct_id AS distinctId, e.timestamp_ms AS timestampMs, json_extract(${E}, '$."$set"') AS "set",
              json_extract(${E}, '$."$import_source"') AS source, json_extract(${E}, '$."$import_run"') AS run
       FROM events e WHERE e.kind = ${EventKind.person} AND json_type(${E}, '$."$set"') = 'object'
         AND json_extract(${E}, '$."$set"') <> '{}' AND e.distinct_id IN (SELECT id FROM reassert_ids)`,
    )
    .all() as Candidate[];
}

/** The re-asserting event's properties: the `$set` as staged, never located, with its provenance. */
export function reassertProperties(c: Pick<Candidate, 'set' | 'source' | 'run'>, run: string | undefined): string {
  let json = `{"$set":${c.set},"$geoip_disable":true`;
  if (c.source !== null) json += `,"$import_source":${JSON.stringify(c.source)}`;
  const importRun = c.run ?? run;
  if (importRun !== undefined) json += `,"$import_run":${JSON.stringify(importRun)}`;
  return json + '}';
}

/**
 * Withdraws re-assertions whose person update is no longer staged as it was (a corrected users
 * file withdrew it): sent later, they would set the old values again.
 */
function withdrawStale(store: StagingStore): number {
  const E = propertiesSql('e.properties');
  return withdrawQueried(
    store,
    `SELECT e.seq FROM events e WHERE e.kind = ${EventKind.reassert} AND NOT EXISTS (
       SELECT 1 FROM events p WHERE p.seq = e.line AND p.kind = ${EventKind.person} AND p.distinct_id = e.distinct_id
         AND p.timestamp_ms = e.timestamp_ms AND json_extract(${propertiesSql('p.properties')}, '$."$set"') = json_extract(${E}, '$."$set"'))`,
    0,
    'gone',
  );
}

/** Stages the re-assertions the staging file needs now (idempotent), in one transaction. */
export function stageReassertions(store: StagingStore): ReassertionCount {
  return store.transaction(() => {
    const removed = withdrawStale(store);
    // No event carries a $set of its own (CSV exports, most files): no person update to read.
    const needed = store.db.prepare('SELECT EXISTS (SELECT 1 FROM set_ids)').pluck().get() === 1;
    if (needed) touchedIds(store);
    const run = readImportRunId(store);
    // read_id 0: made by import, of no read (a read of the users file must never see it as a
    // row of its own); line: the seq of the person update it repeats.
    const insert = store.db.prepare(
      `INSERT INTO events (seq, uuid, kind, event, distinct_id, timestamp_ms, properties, read_id, line)
       VALUES (?, ?, ${EventKind.reassert}, '${REASSERT_EVENT}', ?, ?, jsonb(?), 0, ?)`,
    );
    let added = 0;
    for (const c of needed ? candidates(store) : []) {
      const uuid = deriveUuidBytes(`reassert\n${uuidText(c.uuid)}`, c.timestampMs);
      if (stageWithUuid(store, uuid, (seq) => insert.run(seq, uuid, c.distinctId, c.timestampMs, reassertProperties(c, run), c.seq)) !== undefined) added++;
    }
    const total = (store.db.prepare(`SELECT count(*) AS n FROM events WHERE kind = ${EventKind.reassert}`).get() as { n: number }).n;
    store.db.prepare('DELETE FROM event_names WHERE kind = ?').run(EventKind.reassert);
    if (total > 0) store.db.prepare('INSERT INTO event_names (kind, name, count) VALUES (?, ?, ?)').run(EventKind.reassert, REASSERT_EVENT, total);
    return { total, added, removed };
  });
}
