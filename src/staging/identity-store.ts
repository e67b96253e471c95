/**
 * The identity links' tables: which users each device was seen with (recorded as the events of
 * Amplitude and Mixpanel reads are staged, see identity-new-pairs.ts), the devices to decide
 * again, and what was decided per device. The pairs are merged in SQL, sorted by device into
 * indexed tables, so memory stays flat whatever the number of users (see
 * passes/identity-links.ts for the decisions). The rows are scanned for their pairs only when
 * rows that gave pairs were taken out since (a pair's earliest time may then be later) or the
 * sources wanted changed, and once in a file staged before pairs were recorded with the rows.
 */
import type { LinkFormat } from '../events/identity-pair.js';
import type { Statement } from '../sqlite/database.js';
import type { StagingStore } from './staging-store.js';
import { propertiesSql } from './property-blocks.js';

/** Where a format's events say who and on which device: the distinct_id of the user, and the device as an anonymous distinct_id. */
export const PAIR_SQL: Readonly<Record<LinkFormat, { user: string; device: string }>> = {
  // distinct_id is user_id when there is one; the device's own events carry device_id.
  amplitude: { user: `p ->> '$."$amplitude_user_id"'`, device: `CAST(p ->> '$."$amplitude_device_id"' AS TEXT)` },
  // Simplified ID merge: anonymous events carry `$device:<$device_id>`; identified ones `$user_id`.
  mixpanel: { user: `p ->> '$."$user_id"'`, device: `'$device:' || CAST(p ->> '$."$device_id"' AS TEXT)` },
};
/**
 * The rows pairs are drawn from, each with its properties read once as JSONB (`p`): read through
 * their property block three times a row, they cost the pass four times as much. The OFFSET
 * keeps SQLite from merging this query into the one above (which would read them three times).
 */
const ROWS_SQL = `SELECT jsonb(${propertiesSql('e.properties')}) AS p, e.distinct_id, e.timestamp_ms FROM events e
  WHERE e.seq >= ? AND e.kind = 0 AND e.read_id IN (SELECT value FROM json_each(?)) LIMIT -1 OFFSET 0`;
export const LINK_FORMATS = Object.keys(PAIR_SQL) as LinkFormat[];
/** Set by the upgrade to recorded pairs: rows staged before it have theirs drawn by one scan. */
const SCAN_KEY = 'identity_pairs_scan';

export interface DeviceRecord {
  device: string;
  users: number;
  firstUser: string | null;
  decision: 'linked' | 'placeholder' | 'illegal_user' | 'kiosk' | 'gone';
  linkUser: string | null;
  linkUuid: Uint8Array | null;
  linkMs: number | null;
  keptDelivered: number;
}

/** The users seen on a device: how many, and the first (earliest, then smallest id). */
export interface DeviceUsers {
  users: number;
  first?: { user: string; ms: number };
}

/** Reads of each format whose events links are drawn from, and a fingerprint of the sources left out. */
export function linkReads(store: StagingStore): { reads: Record<LinkFormat, number[]>; excluded: string } {
  const rows = store.db
    .prepare(
      `SELECT r.id, s.id AS source, s.format, r.options FROM source_reads r JOIN sources s ON s.id = r.source_id
       WHERE s.format IN (${LINK_FORMATS.map(() => '?').join(', ')}) AND r.status <> 'failed' ORDER BY r.id`,
    )
    .all(...LINK_FORMATS) as Array<{ id: number; source: number; format: LinkFormat; options: string }>;
  // A source's latest read says whether it wants links (--no-identity-links).
  const wants = new Map<number, boolean>();
  for (const row of rows) wants.set(row.source, (JSON.parse(row.options) as { identityLinks?: unknown }).identityLinks !== false);
  const reads: Record<LinkFormat, number[]> = { amplitude: [], mixpanel: [] };
  for (const row of rows) if (wants.get(row.source)) reads[row.format].push(row.id);
  const excluded = [...wants]
    .filter(([, want]) => !want)
    .map(([source]) => source)
    .sort((a, b) => a - b)
    .join(',');
  return { reads, excluded };
}

/**
 * Adds the pairs of the events staged from `fromSeq` on by `readIds` (of `format`): a new pair,
 * or an earlier first meeting, marks its device to be decided again (triggers on the table).
 * Sorted by device first, so the pairs and the dirty devices are written in key order rather
 * than at random (at a million events those tables outgrow the page cache).
 */
export function collectPairs(store: StagingStore, format: LinkFormat, readIds: readonly number[], fromSeq: number): number {
  if (readIds.length === 0) return 0;
  const { user, device } = PAIR_SQL[format];
  return store.db
    .prepare(
      `INSERT INTO identity_pairs (device, user, first_ms)
       SELECT ${device} AS device, e.distinct_id, e.timestamp_ms FROM (${ROWS_SQL}) e
       WHERE ${user} IS NOT NULL AND e.distinct_id = CAST(${user} AS TEXT) AND device IS NOT NULL
       ORDER BY device, e.distinct_id
       ON CONFLICT (device, user) DO UPDATE SET first_ms = excluded.first_ms WHERE excluded.first_ms < identity_pairs.first_ms`,
    )
    .run(fromSeq, JSON.stringify(readIds)).changes;
}

/**
 * Adds the pairs recorded with the rows staged by `readIds` since the pass last ran, sorted by
 * device so `identity_pairs` and the dirty devices are written in key order.
 */
export function mergeNewPairs(store: StagingStore, readIds: readonly number[]): number {
  if (readIds.length === 0) return 0;
  return store.db
    .prepare(
      `INSERT INTO identity_pairs (device, user, first_ms)
       SELECT device, user, min(first_ms) FROM identity_new_pairs WHERE read_id IN (SELECT value FROM json_each(?))
       GROUP BY device, user ORDER BY device, user
       ON CONFLICT (device, user) DO UPDATE SET first_ms = excluded.first_ms WHERE excluded.first_ms < identity_pairs.first_ms`,
    )
    .run(JSON.stringify(readIds)).changes;
}

/** Whether events (kind 0) of `readIds` were withdrawn after withdrawn_events id `after`: their recorded pairs may stay behind. */
export function pairRowsWithdrawn(store: StagingStore, readIds: readonly number[], after: number): boolean {
  if (readIds.length === 0) return false;
  const sql = 'SELECT EXISTS (SELECT 1 FROM withdrawn_events WHERE id > ? AND kind = 0 AND read_id IN (SELECT value FROM json_each(?)))';
  return store.db.prepare(sql).pluck().get(after, JSON.stringify(readIds)) === 1;
}

/** Empties the recorded pairs (merged, or drawn again by a scan) and the upgrade's mark. */
export function clearNewPairs(store: StagingStore): void {
  store.db.exec('DELETE FROM identity_new_pairs');
  store.db.prepare('DELETE FROM meta WHERE key = ?').run(SCAN_KEY);
}

/** Rows staged before pairs were recorded with them wait for a scan (set by the upgrade). */
export function scanPending(store: StagingStore): boolean {
  return store.db.prepare('SELECT 1 FROM meta WHERE key = ?').get(SCAN_KEY) !== undefined;
}

/** Forgets every pair (they are drawn again from all staged rows) and marks every device known to be decided again. */
export function forgetPairs(store: StagingStore): void {
  store.db.exec('DELETE FROM identity_pairs; INSERT OR IGNORE INTO identity_dirty (device) SELECT device FROM identity_devices;');
}

/** Marks every device known to be decided again (the guard's limit changed). */
export function redecideAllDevices(store: StagingStore): void {
  store.db.exec('INSERT OR IGNORE INTO identity_dirty (device) SELECT device FROM identity_devices;');
}

/** The statements a pass over devices uses, prepared once. */
export class IdentityTables {
  private readonly nextDirty: Statement;
  private readonly users: Statement;
  private readonly record: Statement;
  private readonly save: Statement;
  private readonly clean: Statement;

  constructor(store: StagingStore) {
    const db = store.db;
    this.nextDirty = db.prepare('SELECT device FROM identity_dirty WHERE device > ? ORDER BY device LIMIT ?');
    this.users = db.prepare(
      'SELECT user, first_ms AS ms, (SELECT count(*) FROM identity_pairs WHERE device = @device) AS n FROM identity_pairs WHERE device = @device ORDER BY first_ms, user LIMIT 1',
    );
    this.record = db.prepare(
      `SELECT device, users, first_user AS firstUser, decision, link_user AS linkUser, link_uuid AS linkUuid, link_ms AS linkMs, kept_delivered AS keptDelivered
       FROM identity_devices WHERE device = ?`,
    );
    this.save = db.prepare(
      `INSERT OR REPLACE INTO identity_devices (device, users, first_user, decision, link_user, link_uuid, link_ms, kept_delivered)
       VALUES (@device, @users, @firstUser, @decision, @linkUser, @linkUuid, @linkMs, @keptDelivered)`,
    );
    this.clean = db.prepare('DELETE FROM identity_dirty WHERE device BETWEEN ? AND ?');
  }

  /** The next devices to decide, in order, after `after`. */
  dirty(after: string, limit: number): string[] {
    return (this.nextDirty.all(after, limit) as Array<{ device: string }>).map((r) => r.device);
  }

  usersOf(device: string): DeviceUsers {
    const row = this.users.get({ device }) as { user: string; ms: number; n: number } | undefined;
    return row === undefined ? { users: 0 } : { users: row.n, first: { user: row.user, ms: row.ms } };
  }

  recordOf(device: string): DeviceRecord | undefined {
    return this.record.get(device) as DeviceRecord | undefined;
  }

  saveRecord(record: DeviceRecord): void {
    this.save.run(record);
  }

  /** The devices from `first` to `last` (a page of dirty ones) are decided. */
  decided(first: string, last: string): void {
    this.clean.run(first, last);
  }
}

export interface IdentityTotals {
  devices: number;
  links: number;
  shared: number;
  kiosks: number;
  placeholders: number;
  illegalUsers: number;
  keptDelivered: number;
}

/** Totals over every device, for the summary and status. */
export function identityTotals(store: StagingStore): IdentityTotals {
  return store.db
    .prepare(
      `SELECT count(*) AS devices, count(link_uuid) AS links, coalesce(sum(decision = 'linked' AND users > 1), 0) AS shared,
              coalesce(sum(decision = 'kiosk'), 0) AS kiosks, coalesce(sum(decision = 'placeholder'), 0) AS placeholders,
              coalesce(sum(decision = 'illegal_user'), 0) AS illegalUsers, coalesce(sum(kept_delivered), 0) AS keptDelivered
       FROM identity_devices`,
    )
    .get() as IdentityTotals;
}

/** A few devices of a kind, for the summary: shared (linked to their first user), kiosks, placeholders, links kept. */
export function exampleDevices(
  store: StagingStore,
  kind: 'shared' | 'kiosk' | 'placeholder' | 'kept',
  limit: number,
): Array<{ device: string; users: number; firstUser: string | null; linkUser: string | null }> {
  const where = {
    shared: "decision = 'linked' AND users > 1",
    kiosk: "decision = 'kiosk'",
    placeholder: "decision = 'placeholder'",
    kept: 'kept_delivered = 1',
  }[kind];
  return store.db.prepare(`SELECT device, users, first_user AS firstUser, link_user AS linkUser FROM identity_devices WHERE ${where} ORDER BY users DESC, device LIMIT ?`).all(limit) as Array<{
    device: string;
    users: number;
    firstUser: string | null;
    linkUser: string | null;
  }>;
}
