/**
 * Keeps the staging file's counts of what PostHog's ingestion rules need over the whole file
 * (see events/row-facts.ts): added for the rows a batch actually staged (rows already staged
 * are not counted twice), in the batch's transaction; taken off again for rows withdrawn or
 * undone. So status, doctor and import read small tables and never scan the events.
 */
import { FACT_EVENT_SET, FACT_ILLEGAL_ID, readProfile } from '../events/row-facts.js';
import type { Statement } from '../sqlite/database.js';
import { DISTINCT_ID, textBytes, type EventBatch } from './event-batch.js';
import type { StagingStore } from './staging-store.js';
import { propertiesSql } from './property-blocks.js';

interface Tally {
  count: number;
  firstLine: number;
}

function tally<K>(map: Map<K, Tally>, key: K, count: number, line: number): void {
  const t = map.get(key);
  if (t === undefined) map.set(key, { count, firstLine: line });
  else {
    t.count += count;
    t.firstLine = Math.min(t.firstLine, line);
  }
}

const SEP = '\u0000';

/** Adds the facts of a batch's staged rows, in the writer's transaction. */
export class RowFactsWriter {
  private readonly upsertType: Statement;
  private readonly upsertGroup: Statement;
  private readonly upsertIllegal: Statement;
  private readonly insertSetIds: Statement;
  private readonly addCount: Statement;

  constructor(store: StagingStore) {
    const db = store.db;
    const upsert = (table: string, key: string): string =>
      `INSERT INTO ${table} (${key}, count, first_read, first_line) VALUES (${key
        .split(',')
        .map(() => '?')
        .join(', ')}, ?, ?, ?)
       ON CONFLICT DO UPDATE SET count = count + excluded.count`;
    this.upsertType = db.prepare(upsert('property_types', 'name, type'));
    this.upsertGroup = db.prepare(upsert('group_types', 'type'));
    this.upsertIllegal = db.prepare(upsert('illegal_ids', 'distinct_id'));
    this.insertSetIds = db.prepare('INSERT OR IGNORE INTO set_ids (distinct_id) SELECT value FROM json_each(?)');
    this.addCount = db.prepare('INSERT INTO rule_counts (key, count) VALUES (?, ?) ON CONFLICT DO UPDATE SET count = count + excluded.count');
  }

  /** `staged[i]` is 1 for each row of the batch this write staged. */
  record(readId: number, batch: EventBatch, staged: Uint8Array): void {
    const profiles = new Map<number, Tally>();
    const setIds = new Set<string>();
    const illegal = new Map<string, Tally>();
    for (let i = 0; i < batch.count; i++) {
      if (staged[i] !== 1) continue;
      const profile = batch.profileIndexes[i]!;
      if (profile !== 0) tally(profiles, profile, 1, batch.lines[i]!);
      const flags = batch.flags[i]!;
      if (flags === 0) continue;
      const distinctId = Buffer.from(textBytes(batch, i, DISTINCT_ID)).toString('utf8');
      if ((flags & FACT_EVENT_SET) !== 0) setIds.add(distinctId);
      if ((flags & FACT_ILLEGAL_ID) !== 0) tally(illegal, distinctId, 1, batch.lines[i]!);
    }
    this.saveProfiles(readId, batch, profiles);
    if (setIds.size > 0) this.insertSetIds.run(JSON.stringify([...setIds]));
    for (const [id, t] of illegal) this.upsertIllegal.run(id, t.count, readId, t.firstLine);
  }

  private saveProfiles(readId: number, batch: EventBatch, profiles: Map<number, Tally>): void {
    const types = new Map<string, Tally>();
    const groups = new Map<string, Tally>();
    let setOnceNulls = 0;
    for (const [index, t] of profiles) {
      for (const entry of readProfile(batch.profiles[index]!)) {
        if (entry.tag === 'type') tally(types, entry.name + SEP + entry.type, t.count, t.firstLine);
        else if (entry.tag === 'group') tally(groups, entry.type, t.count, t.firstLine);
        else setOnceNulls += entry.count * t.count;
      }
    }
    for (const [key, t] of types) {
      const at = key.lastIndexOf(SEP);
      this.upsertType.run(key.slice(0, at), key.slice(at + 1), t.count, readId, t.firstLine);
    }
    for (const [type, t] of groups) this.upsertGroup.run(type, t.count, readId, t.firstLine);
    if (setOnceNulls > 0) this.addCount.run('set_once_nulls', setOnceNulls);
  }
}

/** PostHog's types of the JSON types SQLite's json_each reports. */
const JSON_TYPE_SQL = `CASE j.type WHEN 'text' THEN 'string' WHEN 'integer' THEN 'number' WHEN 'real' THEN 'number'
  WHEN 'true' THEN 'boolean' WHEN 'false' THEN 'boolean' WHEN 'object' THEN 'object' WHEN 'array' THEN 'array' END`;

/** The events named in the temporary table `withdraw_seqs`. */
const SELECTED = 'events e JOIN withdraw_seqs w ON w.seq = e.seq';

/**
 * Takes the facts of the rows selected for withdrawal (the temporary table `withdraw_seqs`)
 * off the counts, before they leave the events table. Rare: a changed file, an undone read.
 * The distinct_ids with their own `$set` are kept: an extra re-assertion is harmless.
 */
export function forgetSelectedFacts(store: StagingStore): void {
  store.db.exec(`
    WITH gone AS (
      SELECT j.key AS name, ${JSON_TYPE_SQL} AS type, count(*) AS n FROM ${SELECTED}, json_each(${propertiesSql('e.properties')}) j WHERE e.kind = 0 GROUP BY 1, 2)
    UPDATE property_types SET count = count - (SELECT n FROM gone WHERE gone.name = property_types.name AND gone.type = property_types.type)
    WHERE (name, type) IN (SELECT name, type FROM gone);
    DELETE FROM property_types WHERE count <= 0;

    WITH gone AS (
      SELECT j.key AS type, count(*) AS n FROM ${SELECTED}, json_each(${propertiesSql('e.properties')}, '$."$groups"') j WHERE e.kind = 0 GROUP BY 1
      UNION ALL
      SELECT json_extract(${propertiesSql('e.properties')}, '$."$group_type"'), count(*) FROM ${SELECTED} WHERE e.kind = 2 GROUP BY 1)
    UPDATE group_types SET count = count - (SELECT sum(n) FROM gone WHERE gone.type = group_types.type)
    WHERE type IN (SELECT type FROM gone);
    DELETE FROM group_types WHERE count <= 0;

    WITH gone AS (
      SELECT e.distinct_id, count(*) AS n FROM ${SELECTED}
      WHERE e.event NOT IN ('$identify', '$create_alias', '$merge_dangerously') AND e.distinct_id IN (SELECT distinct_id FROM illegal_ids) GROUP BY 1)
    UPDATE illegal_ids SET count = count - (SELECT n FROM gone WHERE gone.distinct_id = illegal_ids.distinct_id)
    WHERE distinct_id IN (SELECT distinct_id FROM gone);
    DELETE FROM illegal_ids WHERE count <= 0;
  `);
}
