/**
 * Rows the passes after staging derive from the staged events rather than read from a file: the
 * `$identify` of an identity link, the `$groupidentify` of a change of group properties. They are
 * staged like any row (exactly what is sent, counted by kind and name), under read 0 and line 0
 * (no file), so nothing that re-reads a file ever takes them for rows gone from it. A derived row
 * no longer wanted is withdrawn unless a project received it (PostHog keeps what it received).
 * Like every staged row they carry `$geoip_disable` (they have no `$ip` of their own: PostHog
 * would otherwise place them, and the person they touch, at the machine that sends them),
 * `$import_source` and the staging file's `$import_run`.
 *
 * Their properties are packed into property blocks like a source's rows (see property-blocks.ts),
 * by the same block writer, in the pass's own transaction: the stamped text is the one json()
 * gave of the JSONB these rows were once stored as, so what is read and sent is the same bytes.
 * A row changed after staging is written back unpacked, as any row; rows of older files stay
 * JSONB and are read as before.
 */
import type { StagedEvent } from '../events/staged-event.js';
import type { Statement } from '../sqlite/database.js';
import type { StagingStore } from './staging-store.js';
import { selectRow, withdrawSelected, type WithdrawReason } from './withdrawals.js';
import { PropertyBlockWriter, propertiesSql } from './property-blocks.js';
import { uuidKeys } from './uuid-keys.js';
import { IS_BLOCK_ROW } from './event-json-sql.js';
import { addRetimedRows } from './steps-back.js';

/** The read id of derived rows: no source read has it (ids start at 1). */
export const DERIVED_READ_ID = 0;

/** `$import_source` of each kind of derived row. */
const IMPORT_SOURCES: Readonly<Record<string, string>> = { $identify: 'identity-links', $groupidentify: 'group-updates' };

/** The provenance every derived row is stamped with, as a SQL expression over `jsonb(?)` and the bound source and run. */
const STAMPED = `jsonb_set(jsonb(?), '$."$geoip_disable"', json('true'), '$."$import_source"', ?, '$."$import_run"', ?)`;

export interface DerivedRowState {
  seq: number;
  timestampMs: number;
  /** A project accepted it. */
  delivered: boolean;
}

/** The statements over derived rows, prepared once per pass. */
export class DerivedRows {
  private readonly stamp: Statement;
  private readonly insert: Statement;
  private readonly countName: Statement;
  private readonly find: Statement;
  private readonly delivered: Statement;
  private readonly retime: Statement;
  private readonly blocks: PropertyBlockWriter;

  /** `importRun`: the staging file's `$import_run`, stamped on every row staged. */
  constructor(
    private readonly store: StagingStore,
    private readonly importRun: string,
  ) {
    const db = store.db;
    this.stamp = db.prepare(`SELECT json(${STAMPED})`).pluck();
    this.insert = db.prepare(`INSERT INTO events (seq, uuid, kind, event, distinct_id, timestamp_ms, properties, read_id, line) VALUES (?, ?, ?, ?, ?, ?, ?, ${DERIVED_READ_ID}, 0)`);
    this.countName = db.prepare('INSERT INTO event_names (kind, name, count) VALUES (?, ?, 1) ON CONFLICT (kind, name) DO UPDATE SET count = count + 1');
    this.find = db.prepare('SELECT seq, timestamp_ms AS timestampMs FROM events WHERE seq = (SELECT seq FROM event_uuids WHERE uuid = ?)');
    this.delivered = db.prepare('SELECT 1 FROM projects p JOIN deliveries d ON d.project_id = p.id AND d.seq = ?');
    this.retime = db.prepare(`UPDATE events SET timestamp_ms = ? WHERE seq = ? RETURNING ${IS_BLOCK_ROW}`).pluck();
    this.blocks = new PropertyBlockWriter(db, store.propertyBlocks);
  }

  /** Stages a derived row; false when its uuid is staged already. */
  stage(event: StagedEvent): boolean {
    return this.stageAll([event]) === 1;
  }

  /**
   * Stages derived rows in one transaction (a savepoint of the caller's); returns how many were
   * staged (a uuid staged already, or repeated, is not staged again). The uuids are claimed in
   * the order given (the identity pass gives them in uuid order: the uuid index is written page
   * by page); the rows take their seqs and their places in blocks in time order, so import,
   * which reads in time order, unpacks each block once, and its count of steps back
   * (steps-back.ts) stays low.
   */
  stageAll(events: readonly StagedEvent[]): number {
    if (events.length === 0) return 0;
    return this.store.transaction(() => {
      const keys = uuidKeys(this.store);
      const byTime = timeOrder(events);
      const firstSeq = keys.nextSeq();
      const seqs = new Float64Array(events.length);
      byTime.forEach((index, rank) => (seqs[index] = firstSeq + rank));
      const claimed = events.map((event, i) => keys.claim(event.uuid, seqs[i]!));
      let staged = 0;
      this.blocks.within(() => {
        for (const i of byTime) {
          if (!claimed[i]) continue;
          this.insertRow(events[i]!, seqs[i]!);
          staged++;
        }
      });
      keys.settle();
      return staged;
    });
  }

  private insertRow(event: StagedEvent, seq: number): void {
    const text = this.stamp.get(event.propertiesJson, IMPORT_SOURCES[event.event] ?? 'derived', this.importRun) as string;
    this.insert.run(seq, event.uuid, event.kind, event.event, event.distinctId, event.timestampMs, this.blocks.nextRef());
    this.blocks.add(Buffer.from(text));
    this.countName.run(event.kind, event.event);
  }

  /**
   * Once per staging file: stamps the derived rows an earlier migrate staged without the stamp
   * and no project received yet, so they are sent like the rest; returns how many. Rows a
   * project received stay as they were sent (the same uuid always carries the same content).
   */
  stampUnsentOlderRows(): number {
    const db = this.store.db;
    const P = propertiesSql('properties');
    if (db.prepare("SELECT 1 FROM meta WHERE key = 'derived_rows_stamped'").get() !== undefined) return 0;
    const stamped = db
      .prepare(
        `UPDATE events SET properties = jsonb_set(${P}, '$."$geoip_disable"', json('true'),
           '$."$import_source"', coalesce(${P} ->> '$."$import_source"', CASE event WHEN '$identify' THEN 'identity-links' WHEN '$groupidentify' THEN 'group-updates' ELSE 'derived' END),
           '$."$import_run"', ?)
         WHERE kind IN (1, 2) AND read_id = ${DERIVED_READ_ID} AND ${P} ->> '$."$import_run"' IS NULL
           AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.seq = events.seq)`,
      )
      .run(this.importRun).changes;
    db.prepare("INSERT INTO meta (key, value) VALUES ('derived_rows_stamped', ?)").run(String(stamped));
    return stamped;
  }

  /** The staged row with this uuid, if it is still staged. */
  state(uuid: Uint8Array): DerivedRowState | undefined {
    const row = this.find.get(uuid) as { seq: number; timestampMs: number } | undefined;
    return row === undefined ? undefined : { ...row, delivered: this.isDelivered(row.seq) };
  }

  /** True when a project accepted the row with this seq. */
  isDelivered(seq: number): boolean {
    return this.delivered.get(seq) !== undefined;
  }

  /** Moves a row not yet delivered to another time (an earlier meeting of its two ids was found). */
  moveTo(seq: number, timestampMs: number): void {
    if (this.retime.get(timestampMs, seq) === 1) addRetimedRows(this.store.db, 1);
  }

  /** Withdraws a row (kept aside in withdrawn_events, never sent). */
  withdraw(seq: number, reason: WithdrawReason): void {
    selectRow(this.store, seq);
    withdrawSelected(this.store, DERIVED_READ_ID, reason);
  }
}

/** The indexes of `events` in time order (the order given among rows of one time). */
function timeOrder(events: readonly StagedEvent[]): number[] {
  return events.map((_, i) => i).sort((a, b) => events[a]!.timestampMs - events[b]!.timestampMs || a - b);
}
