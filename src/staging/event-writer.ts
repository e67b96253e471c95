/**
 * Writes batches of staged events and rejects, one transaction per batch. A uuid already in
 * the file is not written again: identical content is counted (already staged, or a duplicate
 * row of this same read); different content is a reject, because sending both would put two
 * versions of one event into PostHog. So is a row whose time a zone option decided and that
 * was staged earlier under another zone (see zoned-rows.ts). Re-reading a file, the rows of its
 * earlier reads met again are recorded, so the rows gone from it are known at the end; with
 * --replace-changed, a row of an earlier read of the same file that changed is replaced.
 *
 * The identity pairs of the staged rows are recorded with them (see identity-new-pairs.ts).
 * Properties are stored compressed in blocks, a batch's rows together (see property-blocks.ts);
 * `propertiesTextSql` gives back the exact text that was staged.
 */
import type { RowProblem } from '../events/reject-reasons.js';
import type { StagedEvent } from '../events/staged-event.js';
import { uuidText } from '../events/stable-uuid.js';
import type { Statement } from '../sqlite/database.js';
import { difference, type StagedFields } from './event-difference.js';
import { NameCounts } from './name-counts.js';
import { DISTINCT_ID, EventBatchBuilder, eventAt, PROPERTIES, textBytes, type EventBatch } from './event-batch.js';
import { NewPairsWriter } from './identity-new-pairs.js';
import { RowFactsWriter } from './row-facts-store.js';
import type { StagingStore } from './staging-store.js';
import { selectRow, withdrawSelected } from './withdrawals.js';
import { WriteTransaction } from './write-transaction.js';
import { ZonedRows } from './zoned-rows.js';
import { PropertyBlockWriter, propertiesTextSql } from './property-blocks.js';
import { stageWithUuid, uuidKeys, type UuidKeys } from './uuid-keys.js';

/** The read a batch belongs to, and how it treats rows staged by earlier reads of its file. */
export interface ReadScope {
  readId: number;
  /**
   * Earlier reads of the same file, when it is read again: the rows of theirs met again are
   * recorded in read_seen, so those gone from the file are found at the end.
   */
  earlierReads?: ReadonlySet<number>;
  /** --replace-changed: a row of an earlier read of this file with other content is withdrawn, the new one staged. */
  replace?: boolean;
  /** The zone this read reads times without one in (null: none), for conflict messages. */
  timezone?: string | null;
}

export type StageEntry = { line: number; raw: string; event: StagedEvent } | { line: number; raw: string; problem: RowProblem };

/** A row that could not be staged, as given to the writer. */
export type RejectEntry = Extract<StageEntry, { problem: RowProblem }>;

export interface BatchCounts {
  staged: number;
  alreadyStaged: number;
  duplicates: number;
  /** Every reject written, those given in the batch and the conflicts found while writing. */
  rejected: number;
  /**
   * Rows whose uuid was staged earlier with different content (counted in rejected; their
   * rejects are written by `writeConflicts`, which needs their raw text). `index` is the
   * event's position in the batch.
   */
  conflicts: Array<{ index: number; line: number; problem: RowProblem }>;
}

interface ExistingRow extends StagedFields {
  seq: number;
  /** The options recorded by the read that staged it. */
  options: string;
  read_id: number;
  line: number;
  path: string;
}

/**
 * Rows per multi-row INSERT. One statement for many rows costs far less than one per row;
 * when any row of a group is already staged, the group is undone and written again as groups
 * of SUB_GROUP_ROWS, and a sub-group that fails too row by row (a Mixpanel export's few
 * repeated events made a seventh of its rows go one by one). A batch's last rows go in
 * sub-groups too.
 */
const GROUP_ROWS = 50;
const SUB_GROUP_ROWS = 10;
/** Rows are written with their seq, claimed with their uuid first (see uuid-keys.ts). */
const COLUMNS = 'INSERT INTO events (seq, uuid, kind, event, distinct_id, timestamp_ms, properties, read_id, line, sub_ms_us) VALUES ';
/** A row from JS strings; properties are a reference to the row's place in a property block. */
const ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
/** A row from a batch: distinct_id comes as UTF-8 bytes, read as text. */
const BATCH_ROW = '(?, ?, ?, ?, CAST(? AS TEXT), ?, ?, ?, ?, ?)';
const ROW_PARAMS = 10;

function scopeOf(target: number | ReadScope): ReadScope {
  return typeof target === 'number' ? { readId: target } : target;
}

function zoneText(timezone: unknown): string {
  return typeof timezone === 'string' ? `--timezone ${timezone}` : 'no --timezone';
}

export class EventWriter {
  /** The multi-row INSERT of each group size, with its parameters. */
  private readonly insertGroups = new Map<number, { insert: Statement; params: unknown[] }>();
  private readonly insertOne: Statement;
  private readonly findEvent: Statement;
  private readonly insertReject: Statement;
  private readonly insertSeen: Statement;
  private readonly countName: Statement;
  private readonly zoned: ZonedRows;
  private readonly transactions: WriteTransaction;
  private readonly facts: RowFactsWriter;
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly rollback: Statement;
  private readonly blocks: PropertyBlockWriter;
  private readonly keys: UuidKeys;
  private readonly pairs: NewPairsWriter;

  constructor(private readonly store: StagingStore) {
    const db = store.db;
    for (const rows of [GROUP_ROWS, SUB_GROUP_ROWS]) {
      this.insertGroups.set(rows, { insert: db.prepare(COLUMNS + new Array(rows).fill(BATCH_ROW).join(', ')), params: new Array(rows * ROW_PARAMS) });
    }
    this.insertOne = db.prepare(COLUMNS + ROW);
    this.keys = uuidKeys(store);
    this.findEvent = db.prepare(
      `SELECT e.seq, e.kind, e.event, e.distinct_id, e.timestamp_ms, e.sub_ms_us, ${propertiesTextSql('e.properties')} AS properties,
              e.read_id, e.line, s.path, r.options
       FROM events e JOIN source_reads r ON r.id = e.read_id JOIN sources s ON s.id = r.source_id
       WHERE e.seq = (SELECT seq FROM event_uuids WHERE uuid = ?)`,
    );
    this.insertReject = db.prepare('INSERT INTO rejects (read_id, line, field, reason, message, raw) VALUES (?, ?, ?, ?, ?, ?)');
    this.insertSeen = db.prepare('INSERT OR IGNORE INTO read_seen (read_id, seq) SELECT ?, value FROM json_each(?)');
    this.zoned = new ZonedRows(store, [GROUP_ROWS, SUB_GROUP_ROWS]);
    this.transactions = new WriteTransaction(store.db, store.topLevel);
    this.facts = new RowFactsWriter(store);
    this.countName = db.prepare('INSERT INTO event_names (kind, name, count) VALUES (?, ?, ?) ON CONFLICT (kind, name) DO UPDATE SET count = count + excluded.count');
    this.savepoint = db.prepare('SAVEPOINT event_group');
    this.release = db.prepare('RELEASE event_group');
    this.rollback = db.prepare('ROLLBACK TO event_group');
    this.blocks = new PropertyBlockWriter(db, store.propertyBlocks);
    this.pairs = new NewPairsWriter(store);
  }

  /** Runs `work` in one write transaction, or in a savepoint of the shared one (see WriteTransaction). */
  inTransaction<T>(work: () => Promise<T>): Promise<T> {
    return this.transactions.run(work);
  }

  /** Opens a transaction the next writes share (see WriteTransaction). */
  openShared(): void {
    this.transactions.openShared();
  }

  commitShared(): void {
    this.transactions.commitShared();
  }

  /** Stages events and rejects given as entries, in one transaction (tests, small callers). */
  write(target: number | ReadScope, entries: readonly StageEntry[]): BatchCounts {
    const scope = scopeOf(target);
    const builder = new EventBatchBuilder();
    const rejects: RejectEntry[] = [];
    const raws: string[] = [];
    for (const entry of entries) {
      if ('event' in entry) {
        builder.add(entry.line, entry.event);
        raws.push(entry.raw);
      } else rejects.push(entry);
    }
    return this.store.transaction(() => {
      const counts = this.writeBatch(scope, builder.finish(), rejects);
      this.writeConflicts(
        scope.readId,
        counts.conflicts.map((c) => ({ line: c.line, problem: c.problem, raw: raws[c.index]! })),
      );
      return counts;
    });
  }

  /**
   * Stages a batch of events and rejects for read `readId` in one transaction. Conflicting
   * events are counted and returned, not yet written as rejects (see BatchCounts.conflicts).
   */
  writeBatch(target: number | ReadScope, batch: EventBatch, rejects: readonly RejectEntry[]): BatchCounts {
    const scope = scopeOf(target);
    return this.store.transaction(() => this.blocks.within(() => this.writeRows(scope, batch, rejects)));
  }

  private writeRows(scope: ReadScope, batch: EventBatch, rejects: readonly RejectEntry[]): BatchCounts {
    const counts: BatchCounts = { staged: 0, alreadyStaged: 0, duplicates: 0, rejected: 0, conflicts: [] };
    for (const entry of rejects) this.reject(scope.readId, entry);
    counts.rejected += rejects.length;
    const names = new NameCounts();
    const seen: number[] = [];
    // 1 for each row this batch staged: only those add to the rule facts.
    const staged = new Uint8Array(batch.count);
    const row = { counts, names, seen, staged };
    const group = (from: number, rows: number): boolean => {
      if (!this.blocks.hasRoomFor(rows)) this.blocks.close();
      if (!this.writeGroup(scope.readId, batch, from, rows)) return false;
      counts.staged += rows;
      names.addGroup(batch, from, rows);
      staged.fill(1, from, from + rows);
      return true;
    };
    const subGroups = (from: number, to: number): number => {
      let i = from;
      for (; i + SUB_GROUP_ROWS <= to; i += SUB_GROUP_ROWS) {
        if (!group(i, SUB_GROUP_ROWS)) for (let j = i; j < i + SUB_GROUP_ROWS; j++) this.writeOne(scope, batch, j, row);
      }
      return i;
    };
    let i = 0;
    for (; i + GROUP_ROWS <= batch.count; i += GROUP_ROWS) if (!group(i, GROUP_ROWS)) subGroups(i, i + GROUP_ROWS);
    for (i = subGroups(i, batch.count); i < batch.count; i++) this.writeOne(scope, batch, i, row);
    names.save(this.countName);
    this.facts.record(scope.readId, batch, staged);
    this.pairs.record(scope.readId, batch, staged);
    if (seen.length > 0) this.insertSeen.run(scope.readId, JSON.stringify(seen));
    // Part of the batch's transaction: a read stopped after it resumes with the merge done or not.
    this.keys.settle();
    return counts;
  }

  /** Writes the rejects of conflicting rows found by writeBatch, with their raw text. */
  writeConflicts(readId: number, conflicts: readonly RejectEntry[]): void {
    if (conflicts.length === 0) return;
    this.store.transaction(() => {
      for (const entry of conflicts) this.reject(readId, entry);
    });
  }

  /** Inserts `rows` events at once (a group size); false (and nothing written) when any was staged before. */
  private writeGroup(readId: number, batch: EventBatch, from: number, rows: number): boolean {
    const { insert, params: p } = this.insertGroups.get(rows)!;
    this.savepoint.run();
    const firstSeq = this.keys.nextSeq();
    for (let j = 0, o = 0; j < rows; j++, o += ROW_PARAMS) {
      const i = from + j;
      p[o] = firstSeq + j;
      p[o + 1] = batch.uuids.subarray(i * 16, i * 16 + 16);
      p[o + 2] = batch.kinds[i];
      p[o + 3] = batch.names[batch.nameIndexes[i]!];
      p[o + 4] = textBytes(batch, i, DISTINCT_ID);
      p[o + 5] = batch.timestampsMs[i];
      p[o + 6] = this.blocks.ref(j);
      p[o + 7] = readId;
      p[o + 8] = batch.lines[i];
      p[o + 9] = batch.subMsUs[i];
    }
    // A zoned row known already may be the same row read with another zone: row by row, then.
    let ok = true;
    let zoned = 0;
    for (let i = from; i < from + rows; i++) zoned += batch.zoned[i]!;
    if (zoned === rows)
      ok = this.zoned.addGroupIfNew(
        rows,
        (j) => zoneKeyAt(batch, from + j),
        (j) => uuidAt(batch, from + j),
      );
    else if (zoned > 0) {
      for (let i = from; ok && i < from + rows; i++) if (batch.zoned[i] === 1) ok = this.zoned.addIfNew(zoneKeyAt(batch, i), uuidAt(batch, i));
    }
    ok &&= this.keys.claimGroup(rows, (j) => uuidAt(batch, from + j), firstSeq);
    if (ok) insert.run(p);
    else this.rollback.run();
    this.release.run();
    if (!ok) return false;
    for (let i = from; i < from + rows; i++) this.blocks.add(textBytes(batch, i, PROPERTIES));
    return true;
  }

  private writeOne(scope: ReadScope, batch: EventBatch, index: number, row: { counts: BatchCounts; names: NameCounts; seen: number[]; staged: Uint8Array }): void {
    const { counts, names } = row;
    const e = eventAt(batch, index);
    const line = batch.lines[index]!;
    if (batch.zoned[index] === 1 && !this.claimZone(scope, batch, index, counts)) return;
    if (this.insertRow(e, scope.readId, line)) {
      this.blocks.add(textBytes(batch, index, PROPERTIES));
      counts.staged++;
      names.add(e.kind, e.event);
      row.staged[index] = 1;
      return;
    }
    const existing = this.findEvent.get(e.uuid) as ExistingRow;
    const differs = difference(existing, e);
    const earlier = scope.earlierReads?.has(existing.read_id) === true;
    if (differs === undefined) {
      if (existing.read_id === scope.readId) counts.duplicates++;
      else counts.alreadyStaged++;
      if (earlier) row.seen.push(existing.seq);
      return;
    }
    if (earlier && scope.replace) {
      this.withdraw(scope, existing.seq);
      this.insertRow(e, scope.readId, line);
      this.blocks.add(textBytes(batch, index, PROPERTIES));
      counts.staged++;
      names.add(e.kind, e.event);
      row.staged[index] = 1;
      return;
    }
    const message = `uuid ${uuidText(e.uuid)} was staged from ${existing.path}:${existing.line} with a different ${differs}; the earlier version is kept`;
    this.conflict(counts, index, line, 'uuid', message);
  }

  /**
   * For a row whose time a zone option decided: false (and a conflict counted) when the same
   * row is staged under another uuid, that is, read with another zone. Under --replace-changed
   * a version from an earlier read of the same file is withdrawn instead.
   */
  private claimZone(scope: ReadScope, batch: EventBatch, index: number, counts: BatchCounts): boolean {
    const key = zoneKeyAt(batch, index);
    const uuid = uuidAt(batch, index);
    const claim = this.zoned.claim(key, uuid);
    if (claim.type === 'ok') return true;
    const other = this.findEvent.get(claim.uuid) as ExistingRow;
    if (scope.replace && scope.earlierReads?.has(other.read_id) === true) {
      this.withdraw(scope, other.seq);
      this.zoned.takeOver(key, uuid);
      return true;
    }
    const otherZone = (JSON.parse(other.options) as { timezone?: unknown }).timezone;
    const when = (ms: number): string => new Date(ms).toISOString();
    const message =
      `this row was staged from ${other.path}:${other.line} at ${when(other.timestamp_ms)} (${zoneText(otherZone)}); ` +
      `read here with ${zoneText(scope.timezone)} it is at ${when(batch.timestampsMs[index]!)}. ` +
      'Staging both would send the same event twice, hours apart; the earlier version is kept';
    this.conflict(counts, index, batch.lines[index]!, '', message);
    return false;
  }

  /** Stages one row; false (nothing written) when its uuid is staged already. */
  private insertRow(e: StagedEvent, readId: number, line: number): boolean {
    const ref = this.blocks.nextRef();
    const seq = stageWithUuid(this.store, e.uuid, (s) => this.insertOne.run(s, e.uuid, e.kind, e.event, e.distinctId, e.timestampMs, ref, readId, line, e.subMsUs ?? 0));
    return seq !== undefined;
  }

  private conflict(counts: BatchCounts, index: number, line: number, field: string, message: string): void {
    counts.rejected++;
    counts.conflicts.push({ index, line, problem: { field, reason: 'conflicts_with_staged', message } });
  }

  private withdraw(scope: ReadScope, seq: number): void {
    selectRow(this.store, seq);
    withdrawSelected(this.store, scope.readId, 'replaced');
  }

  private reject(readId: number, { line, problem, raw }: RejectEntry): void {
    this.insertReject.run(readId, line, problem.field, problem.reason, problem.message, raw);
  }
}

function uuidAt(batch: EventBatch, i: number): Uint8Array {
  return batch.uuids.subarray(i * 16, i * 16 + 16);
}

function zoneKeyAt(batch: EventBatch, i: number): Uint8Array {
  return batch.zoneKeys.subarray(i * 16, i * 16 + 16);
}
