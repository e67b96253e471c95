/**
 * What the staging file knows about PostHog's ingestion rules, for status, doctor, import and
 * `rejects --warnings`: from the small tables kept as rows are staged (row-facts-store.ts) and
 * the reads' recorded options. A file made by an older migrate lacks the tables: it reads as
 * having nothing to report, except the GeoIP state of its reads.
 */
import { EventKind } from '../events/staged-event.js';
import type { StagingStore } from './staging-store.js';

/** A staged row's place, for "first seen at". */
export interface RowPlace {
  path: string;
  line: number;
}

export interface GroupTypeUse extends RowPlace {
  type: string;
  /** Rows using it (events with it in `$groups`, group updates of that type). */
  count: number;
}

export interface IllegalId extends RowPlace {
  distinctId: string;
  events: number;
}

export interface PropertyTypeConflict {
  name: string;
  /** Each JSON type the property was staged with: how many events, and the first. */
  types: Array<{ type: string; count: number } & RowPlace>;
}

export interface GeoReads {
  /** Reads whose rows without their own `$ip` carry `$geoip_disable` (the default). */
  fromIp: number;
  /** Reads staged with --no-geoip: every row carries `$geoip_disable`. */
  off: number;
  /** Reads by a migrate that set no `$geoip_disable`: their rows would be located at the importing machine. */
  older: Array<{ path: string; staged: number }>;
}

export interface RuleReport {
  geo: GeoReads;
  groupTypes: GroupTypeUse[];
  illegalIds: { events: number; ids: IllegalId[] };
  propertyConflicts: PropertyTypeConflict[];
  setOnceNullsDropped: number;
  /** Re-assertions staged (kind 3), and how many persons' events carry `$set`s of their own. */
  reassertions: { staged: number; personsWithEventSets: number };
}

function hasTable(store: StagingStore, name: string): boolean {
  return store.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

const PLACE = `coalesce((SELECT s.path FROM source_reads r JOIN sources s ON s.id = r.source_id WHERE r.id = t.first_read), '') AS path, t.first_line AS line`;

export function geoReads(store: StagingStore): GeoReads {
  const rows = store.db
    .prepare(
      `SELECT s.path, r.rows_staged AS staged, json_extract(r.options, '$.geoip') AS geoip, json_type(r.options, '$.geoip') AS recorded
       FROM source_reads r JOIN sources s ON s.id = r.source_id WHERE r.status <> 'failed' AND r.rows_staged > 0 ORDER BY r.id`,
    )
    .all() as Array<{ path: string; staged: number; geoip: number | null; recorded: string | null }>;
  const geo: GeoReads = { fromIp: 0, off: 0, older: [] };
  for (const row of rows) {
    if (row.recorded === null) geo.older.push({ path: row.path, staged: row.staged });
    else if (row.geoip === 0) geo.off++;
    else geo.fromIp++;
  }
  return geo;
}

export function groupTypeUses(store: StagingStore): GroupTypeUse[] {
  if (!hasTable(store, 'group_types')) return [];
  return store.db.prepare(`SELECT t.type, t.count, ${PLACE} FROM group_types t ORDER BY t.first_read, t.first_line, t.type`).all() as GroupTypeUse[];
}

export function illegalIds(store: StagingStore, limit = -1): RuleReport['illegalIds'] {
  if (!hasTable(store, 'illegal_ids')) return { events: 0, ids: [] };
  const events = (store.db.prepare('SELECT coalesce(sum(count), 0) AS n FROM illegal_ids').get() as { n: number }).n;
  const ids = store.db.prepare(`SELECT t.distinct_id AS distinctId, t.count AS events, ${PLACE} FROM illegal_ids t ORDER BY t.count DESC, t.distinct_id LIMIT ?`).all(limit) as IllegalId[];
  return { events, ids };
}

/** Properties staged with more than one JSON type, most widespread first. */
export function propertyConflicts(store: StagingStore, limit = -1): PropertyTypeConflict[] {
  if (!hasTable(store, 'property_types')) return [];
  const rows = store.db
    .prepare(
      `SELECT t.name, t.type, t.count, ${PLACE} FROM property_types t
       WHERE t.name IN (SELECT name FROM property_types GROUP BY name HAVING count(*) > 1 ORDER BY sum(count) DESC, name LIMIT ?)
       ORDER BY t.name, t.count DESC, t.type`,
    )
    .all(limit) as Array<{ name: string; type: string; count: number } & RowPlace>;
  const byName = new Map<string, PropertyTypeConflict>();
  for (const { name, ...type } of rows) {
    let conflict = byName.get(name);
    if (conflict === undefined) byName.set(name, (conflict = { name, types: [] }));
    conflict.types.push(type);
  }
  const total = (c: PropertyTypeConflict): number => c.types.reduce((n, t) => n + t.count, 0);
  return [...byName.values()].sort((a, b) => total(b) - total(a) || a.name.localeCompare(b.name));
}

function ruleCount(store: StagingStore, key: string): number {
  if (!hasTable(store, 'rule_counts')) return 0;
  return (store.db.prepare('SELECT coalesce(sum(count), 0) AS n FROM rule_counts WHERE key = ?').get(key) as { n: number }).n;
}

function reassertionReport(store: StagingStore): RuleReport['reassertions'] {
  const staged = (store.db.prepare('SELECT coalesce(sum(count), 0) AS n FROM event_names WHERE kind = ?').get(EventKind.reassert) as { n: number }).n;
  const persons = hasTable(store, 'set_ids') ? (store.db.prepare('SELECT count(*) AS n FROM set_ids').get() as { n: number }).n : 0;
  return { staged, personsWithEventSets: persons };
}

/** Everything status shows about the rules; `shown` bounds the lists. */
export function ruleReport(store: StagingStore, shown = 10): RuleReport {
  return {
    geo: geoReads(store),
    groupTypes: groupTypeUses(store),
    illegalIds: illegalIds(store, shown),
    propertyConflicts: propertyConflicts(store, shown),
    setOnceNullsDropped: ruleCount(store, 'set_once_nulls'),
    reassertions: reassertionReport(store),
  };
}

/** Events (kind 0) not yet settled for the project whose time is after `sinceMs`: how many, and the newest. */
export function pendingRecentEvents(store: StagingStore, projectId: number | undefined, sinceMs: number): { count: number; newestMs: number | null } {
  const row = store.db
    .prepare(
      `SELECT count(*) AS count, max(e.timestamp_ms) AS newestMs FROM events e WHERE e.kind = ${EventKind.event} AND e.timestamp_ms > @sinceMs
       AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.project_id = @projectId AND d.seq = e.seq)
       AND NOT EXISTS (SELECT 1 FROM dead_letters x WHERE x.project_id = @projectId AND x.seq = e.seq)`,
    )
    .get({ sinceMs, projectId: projectId ?? -1 }) as { count: number; newestMs: number | null };
  return row;
}
