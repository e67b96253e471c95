/**
 * Latest re-sends: PostHog keeps the last person `$set` or `$group_set` it processed, whatever
 * its time. Within a run updates go one at a time in time order, so the latest in time is sent
 * last; but an update staged after a newer one for the same person or group was delivered (a
 * backfill: day 2 imported, then day 1 staged and imported) would be processed last and leave
 * PostHog with the older state. So before a run, for each project, each person or group with an
 * update still to send that is older than one the project received gets its latest update staged
 * again, as a copy with its own uuid at the same time: sent after the older one, it makes the
 * latest what PostHog ends with. Groups' copies are `$groupidentify` rows (kind 2); persons' are
 * `$set` events sent last (kind 3, as re-assertions: see reassertions.ts). The copy's uuid comes
 * from the latest update's and the older one's, so preparing again stages nothing new; read 0
 * and `line` the seq of the update it repeats, so a copy whose update is gone is withdrawn.
 */
import { deriveUuidBytes, uuidText } from '../events/stable-uuid.js';
import { EventKind } from '../events/staged-event.js';
import { readImportRunId } from './import-run-id.js';
import { reassertProperties } from './reassertions.js';
import type { StagingStore } from './staging-store.js';
import { withdrawQueried } from './withdrawals.js';
import { propertiesSql, propertiesTextSql } from './property-blocks.js';
import { stageWithUuid } from './uuid-keys.js';

export interface LatestResendCount {
  /** Copies staged by this call. */
  added: number;
  /** Copies withdrawn by this call: the update they repeat is no longer staged. */
  removed: number;
}

const E = propertiesSql('e.properties');
/** The rows that update one target, and the target they update. */
const TARGETS = {
  group: {
    rows: `e.kind = ${EventKind.group}`,
    target: `(${E} ->> '$."$group_type"') || char(0) || (${E} ->> '$."$group_key"')`,
  },
  // A person's `$set`s: person updates (users files) and the re-assertions sent after the events.
  person: {
    rows: `e.kind IN (${EventKind.person}, ${EventKind.reassert}) AND json_type(${E}, '$."$set"') = 'object' AND json_extract(${E}, '$."$set"') <> '{}'`,
    target: 'e.distinct_id',
  },
} as const;

/** Per target whose latest update `project` received while an older one waits: the latest update's seq and the newest-staged older one's. */
function behindLatest(store: StagingStore, projectId: number, kind: keyof typeof TARGETS): Array<{ latestSeq: number; olderSeq: number }> {
  const { rows, target } = TARGETS[kind];
  return store.db
    .prepare(
      `WITH u AS MATERIALIZED (
         SELECT e.seq, ${target} AS id, e.timestamp_ms AS ts,
                EXISTS (SELECT 1 FROM deliveries d WHERE d.project_id = @p AND d.seq = e.seq) AS sent,
                EXISTS (SELECT 1 FROM dead_letters x WHERE x.project_id = @p AND x.seq = e.seq) AS dead
         FROM events e WHERE ${rows}),
       s AS (SELECT id, max(ts) AS sentMax FROM u WHERE sent GROUP BY id),
       o AS (SELECT u.id, max(u.seq) AS olderSeq FROM u JOIN s ON s.id = u.id WHERE NOT u.sent AND NOT u.dead AND u.ts < s.sentMax GROUP BY u.id),
       l AS (SELECT id, max(ts) AS ts, seq AS latestSeq, sent FROM u WHERE id IN (SELECT id FROM o) GROUP BY id)
       SELECT l.latestSeq, o.olderSeq FROM o JOIN l ON l.id = o.id WHERE l.sent ORDER BY l.latestSeq`,
    )
    .all({ p: projectId }) as Array<{ latestSeq: number; olderSeq: number }>;
}

interface Latest {
  seq: number;
  uuid: Buffer;
  kind: number;
  event: string;
  distinctId: string;
  timestampMs: number;
  line: number;
  readId: number;
  properties: string;
  set: string | null;
  source: string | null;
  run: string | null;
}

function rowAt(store: StagingStore, seq: number): Latest {
  const P = propertiesSql('properties');
  return store.db
    .prepare(
      `SELECT seq, uuid, kind, event, distinct_id AS distinctId, timestamp_ms AS timestampMs, line, read_id AS readId, ${propertiesTextSql('properties')} AS properties,
              json_extract(${P}, '$."$set"') AS "set", ${P} ->> '$."$import_source"' AS source, ${P} ->> '$."$import_run"' AS run
       FROM events WHERE seq = ?`,
    )
    .get(seq) as Latest;
}

/** The copy's kind, properties and the seq of the update it repeats (a copy of a copy repeats the same update). */
function copyOf(latest: Latest, run: string | undefined): { kind: number; event: string; properties: string; origin: number } {
  const isCopy = latest.readId === 0 && latest.line > 0;
  if (latest.kind === EventKind.group) {
    // Never located, with the file's run, even when the update it repeats was staged before those rules.
    const properties: Record<string, unknown> = { ...(JSON.parse(latest.properties) as Record<string, unknown>), $geoip_disable: true };
    if (properties.$import_run === undefined && run !== undefined) properties.$import_run = run;
    return { kind: EventKind.group, event: latest.event, properties: JSON.stringify(properties), origin: isCopy ? latest.line : latest.seq };
  }
  // A re-assertion (kind 3) already is a `$set` event, its line the person update it repeats.
  if (latest.kind === EventKind.reassert) return { kind: EventKind.reassert, event: latest.event, properties: latest.properties, origin: latest.line };
  return { kind: EventKind.reassert, event: '$set', properties: reassertProperties({ ...latest, set: latest.set! }, run), origin: latest.seq };
}

/** Copies of group updates whose update is gone and that no project received. */
function withdrawOrphans(store: StagingStore): number {
  return withdrawQueried(
    store,
    `SELECT e.seq FROM events e WHERE e.kind = ${EventKind.group} AND e.read_id = 0 AND e.line > 0
       AND NOT EXISTS (SELECT 1 FROM events u WHERE u.seq = e.line) AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.seq = e.seq)`,
    0,
    'gone',
  );
}

/** Stages the copies the staging file needs now, for every project that received something (idempotent), in one transaction. */
export function stageLatestResends(store: StagingStore): LatestResendCount {
  return store.transaction(() => {
    const removed = withdrawOrphans(store);
    const projects = store.db.prepare('SELECT DISTINCT project_id FROM deliveries').pluck().all() as number[];
    const run = readImportRunId(store);
    const insert = store.db.prepare(`INSERT INTO events (seq, uuid, kind, event, distinct_id, timestamp_ms, properties, read_id, line) VALUES (?, ?, ?, ?, ?, ?, jsonb(?), 0, ?)`);
    const countName = store.db.prepare('INSERT INTO event_names (kind, name, count) VALUES (?, ?, 1) ON CONFLICT (kind, name) DO UPDATE SET count = count + 1');
    const uuidAt = store.db.prepare('SELECT uuid FROM events WHERE seq = ?').pluck();
    let added = 0;
    for (const projectId of projects) {
      for (const kind of ['group', 'person'] as const) {
        for (const { latestSeq, olderSeq } of behindLatest(store, projectId, kind)) {
          const latest = rowAt(store, latestSeq);
          const copy = copyOf(latest, run);
          const uuid = deriveUuidBytes(`latest\n${uuidText(latest.uuid)}\n${uuidText(uuidAt.get(olderSeq) as Buffer)}`, latest.timestampMs);
          const write = (seq: number) => insert.run(seq, uuid, copy.kind, copy.event, latest.distinctId, latest.timestampMs, copy.properties, copy.origin);
          if (stageWithUuid(store, uuid, write) === undefined) continue;
          countName.run(copy.kind, copy.event);
          added++;
        }
      }
    }
    return { added, removed };
  });
}
