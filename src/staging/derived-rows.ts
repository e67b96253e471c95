/**
 * Rows the passes after staging derive from the staged events rather than read from a file: the
 * `$identify` of an identity link, the `$groupidentify` of a change of group properties. They are
 * staged like any row (exactly what is sent, counted by kind and name), under read 0 and line 0
 * (no file), so nothing that re-reads a file ever takes them for rows gone from it. A derived row
 * no longer wanted is withdrawn unless a project received it (PostHog keeps what it received).
 */
import type { StagedEvent } from '../events/staged-event.js';
import type { Statement } from '../sqlite/database.js';
import type { StagingStore } from './staging-store.js';
import { selectRow, withdrawSelected, type WithdrawReason } from './withdrawals.js';

/** The read id of derived rows: no source read has it (ids start at 1). */
export const DERIVED_READ_ID = 0;

export interface DerivedRowState {
  seq: number;
  timestampMs: number;
  /** A project accepted it. */
  delivered: boolean;
}

/** The statements over derived rows, prepared once per pass. */
export class DerivedRows {
  private readonly insert: Statement;
  private readonly countName: Statement;
  private readonly find: Statement;
  private readonly delivered: Statement;
  private readonly retime: Statement;

  constructor(private readonly store: StagingStore) {
    const db = store.db;
    this.insert = db.prepare(
      `INSERT INTO events (uuid, kind, event, distinct_id, timestamp_ms, properties, read_id, line) VALUES (?, ?, ?, ?, ?, jsonb(?), ${DERIVED_READ_ID}, 0)
       ON CONFLICT (uuid) DO NOTHING`,
    );
    this.countName = db.prepare('INSERT INTO event_names (kind, name, count) VALUES (?, ?, 1) ON CONFLICT (kind, name) DO UPDATE SET count = count + 1');
    this.find = db.prepare('SELECT seq, timestamp_ms AS timestampMs FROM events WHERE uuid = ?');
    this.delivered = db.prepare('SELECT 1 FROM projects p JOIN deliveries d ON d.project_id = p.id AND d.seq = ?');
    this.retime = db.prepare('UPDATE events SET timestamp_ms = ? WHERE seq = ?');
  }

  /** Stages a derived row; false when its uuid is staged already. */
  stage(event: StagedEvent): boolean {
    if (this.insert.run(event.uuid, event.kind, event.event, event.distinctId, event.timestampMs, event.propertiesJson).changes === 0) return false;
    this.countName.run(event.kind, event.event);
    return true;
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
    this.retime.run(timestampMs, seq);
  }

  /** Withdraws a row (kept aside in withdrawn_events, never sent). */
  withdraw(seq: number, reason: WithdrawReason): void {
    selectRow(this.store, seq);
    withdrawSelected(this.store, DERIVED_READ_ID, reason);
  }
}
