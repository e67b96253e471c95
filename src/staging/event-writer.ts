/**
 * Writes batches of staged events and rejects, one transaction per batch. A uuid already in
 * the file is not written again: identical content is counted (already staged, or a duplicate
 * row of this same read); different content is a reject, because sending both would put two
 * versions of one event into PostHog.
 *
 * Properties are stored as SQLite JSONB (binary JSON, about an eighth smaller than the text);
 * `json(properties)` gives back the exact text that was staged.
 */
import { canonicalJson } from '../events/canonical-json.js';
import type { RowProblem } from '../events/reject-reasons.js';
import type { StagedEvent } from '../events/staged-event.js';
import { uuidText } from '../events/stable-uuid.js';
import { parseStagedJson } from '../sources/json/read-json.js';
import type { Statement } from '../sqlite/database.js';
import { DISTINCT_ID, EventBatchBuilder, eventAt, PROPERTIES, textBytes, type EventBatch } from './event-batch.js';
import type { StagingStore } from './staging-store.js';

export type StageEntry =
  | { line: number; raw: string; event: StagedEvent }
  | { line: number; raw: string; problem: RowProblem };

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

interface ExistingRow {
  kind: number;
  event: string;
  distinct_id: string;
  timestamp_ms: number;
  properties: string;
  read_id: number;
  line: number;
  path: string;
}

/**
 * Rows per multi-row INSERT. One statement for many rows costs far less than one per row;
 * when any row of a group is already staged, the group is undone and written row by row.
 */
const GROUP_ROWS = 50;
const COLUMNS = 'INSERT INTO events (uuid, kind, event, distinct_id, timestamp_ms, properties, read_id, line) VALUES ';
/** A row from JS strings. */
const ROW = '(?, ?, ?, ?, ?, jsonb(?), ?, ?)';
/** A row from a batch: distinct_id and properties come as UTF-8 bytes, read as text. */
const BATCH_ROW = '(?, ?, ?, CAST(? AS TEXT), ?, jsonb(CAST(? AS TEXT)), ?, ?)';
const ON_CONFLICT = ' ON CONFLICT (uuid) DO NOTHING';

/** Which part of a staged event differs from the existing one, or undefined when none does. */
function difference(existing: ExistingRow, event: StagedEvent): string | undefined {
  if (existing.event !== event.event) return `event name ("${existing.event}" then "${event.event}")`;
  if (existing.distinct_id !== event.distinctId) return 'distinct_id';
  if (existing.timestamp_ms !== event.timestampMs) {
    return `timestamp (${new Date(existing.timestamp_ms).toISOString()} then ${new Date(event.timestampMs).toISOString()})`;
  }
  if (existing.kind !== event.kind) return 'kind';
  if (existing.properties !== event.propertiesJson && !sameJson(existing.properties, event.propertiesJson)) return 'properties';
  return undefined;
}

/** Equal JSON values whatever their key order: a re-export may list properties in another order. */
function sameJson(a: string, b: string): boolean {
  return canonicalJson(parseStagedJson(a)) === canonicalJson(parseStagedJson(b));
}

/** Staged-event counts per (kind, name), added to event_names once per batch. */
class NameCounts {
  private readonly byKind = new Map<number, Map<string, number>>();

  add(kind: number, name: string, n = 1): void {
    let names = this.byKind.get(kind);
    if (names === undefined) this.byKind.set(kind, (names = new Map()));
    names.set(name, (names.get(name) ?? 0) + n);
  }

  /** Counts `n` events of a batch from `from`, by name index, then by name. */
  addGroup(batch: EventBatch, from: number, n: number): void {
    const counts = new Map<number, number>();
    for (let i = from; i < from + n; i++) {
      const key = batch.kinds[i]! * 2 ** 32 + batch.nameIndexes[i]!;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    for (const [key, count] of counts) this.add(Math.floor(key / 2 ** 32), batch.names[key % 2 ** 32]!, count);
  }

  save(statement: Statement): void {
    for (const [kind, names] of this.byKind) for (const [name, count] of names) statement.run(kind, name, count);
  }
}

export class EventWriter {
  private readonly insertGroup: Statement;
  private readonly insertOne: Statement;
  private readonly findEvent: Statement;
  private readonly insertReject: Statement;
  private readonly countName: Statement;
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly rollback: Statement;
  private readonly params: unknown[] = new Array(GROUP_ROWS * 8);

  constructor(private readonly store: StagingStore) {
    const db = store.db;
    this.insertGroup = db.prepare(COLUMNS + new Array(GROUP_ROWS).fill(BATCH_ROW).join(', ') + ON_CONFLICT);
    this.insertOne = db.prepare(COLUMNS + ROW + ON_CONFLICT);
    this.findEvent = db.prepare(
      `SELECT e.kind, e.event, e.distinct_id, e.timestamp_ms, iif(typeof(e.properties) = 'blob', json(e.properties), e.properties) AS properties,
              e.read_id, e.line, s.path
       FROM events e JOIN source_reads r ON r.id = e.read_id JOIN sources s ON s.id = r.source_id WHERE e.uuid = ?`,
    );
    this.insertReject = db.prepare('INSERT INTO rejects (read_id, line, field, reason, message, raw) VALUES (?, ?, ?, ?, ?, ?)');
    this.countName = db.prepare(
      'INSERT INTO event_names (kind, name, count) VALUES (?, ?, ?) ON CONFLICT (kind, name) DO UPDATE SET count = count + excluded.count',
    );
    this.savepoint = db.prepare('SAVEPOINT event_group');
    this.release = db.prepare('RELEASE event_group');
    this.rollback = db.prepare('ROLLBACK TO event_group');
  }

  /** Stages events and rejects given as entries, in one transaction (tests, small callers). */
  write(readId: number, entries: readonly StageEntry[]): BatchCounts {
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
      const counts = this.writeBatch(readId, builder.finish(), rejects);
      this.writeConflicts(readId, counts.conflicts.map((c) => ({ line: c.line, problem: c.problem, raw: raws[c.index]! })));
      return counts;
    });
  }

  /**
   * Stages a batch of events and rejects for read `readId` in one transaction. Conflicting
   * events are counted and returned, not yet written as rejects (see BatchCounts.conflicts).
   */
  writeBatch(readId: number, batch: EventBatch, rejects: readonly RejectEntry[]): BatchCounts {
    return this.store.transaction(() => {
      const counts: BatchCounts = { staged: 0, alreadyStaged: 0, duplicates: 0, rejected: 0, conflicts: [] };
      for (const entry of rejects) this.reject(readId, entry);
      counts.rejected += rejects.length;
      const names = new NameCounts();
      let i = 0;
      for (; i + GROUP_ROWS <= batch.count; i += GROUP_ROWS) {
        if (this.writeGroup(readId, batch, i)) {
          counts.staged += GROUP_ROWS;
          names.addGroup(batch, i, GROUP_ROWS);
        } else {
          for (let j = i; j < i + GROUP_ROWS; j++) this.writeOne(readId, batch, j, counts, names);
        }
      }
      for (; i < batch.count; i++) this.writeOne(readId, batch, i, counts, names);
      names.save(this.countName);
      return counts;
    });
  }

  /** Writes the rejects of conflicting rows found by writeBatch, with their raw text. */
  writeConflicts(readId: number, conflicts: readonly RejectEntry[]): void {
    if (conflicts.length === 0) return;
    this.store.transaction(() => {
      for (const entry of conflicts) this.reject(readId, entry);
    });
  }

  /** Inserts GROUP_ROWS events at once; false (and nothing written) when any was staged before. */
  private writeGroup(readId: number, batch: EventBatch, from: number): boolean {
    const p = this.params;
    for (let j = 0, o = 0; j < GROUP_ROWS; j++, o += 8) {
      const i = from + j;
      p[o] = batch.uuids.subarray(i * 16, i * 16 + 16);
      p[o + 1] = batch.kinds[i];
      p[o + 2] = batch.names[batch.nameIndexes[i]!];
      p[o + 3] = textBytes(batch, i, DISTINCT_ID);
      p[o + 4] = batch.timestampsMs[i];
      p[o + 5] = textBytes(batch, i, PROPERTIES);
      p[o + 6] = readId;
      p[o + 7] = batch.lines[i];
    }
    this.savepoint.run();
    const inserted = this.insertGroup.run(p).changes;
    if (inserted !== GROUP_ROWS) this.rollback.run();
    this.release.run();
    return inserted === GROUP_ROWS;
  }

  private writeOne(readId: number, batch: EventBatch, index: number, counts: BatchCounts, names: NameCounts): void {
    const e = eventAt(batch, index);
    const line = batch.lines[index]!;
    if (this.insertOne.run(e.uuid, e.kind, e.event, e.distinctId, e.timestampMs, e.propertiesJson, readId, line).changes === 1) {
      counts.staged++;
      names.add(e.kind, e.event);
      return;
    }
    const existing = this.findEvent.get(e.uuid) as ExistingRow;
    const differs = difference(existing, e);
    if (differs === undefined) {
      if (existing.read_id === readId) counts.duplicates++;
      else counts.alreadyStaged++;
      return;
    }
    const message = `uuid ${uuidText(e.uuid)} was staged from ${existing.path}:${existing.line} with a different ${differs}; the earlier version is kept`;
    counts.rejected++;
    counts.conflicts.push({ index, line, problem: { field: 'uuid', reason: 'conflicts_with_staged', message } });
  }

  private reject(readId: number, { line, problem, raw }: RejectEntry): void {
    this.insertReject.run(readId, line, problem.field, problem.reason, problem.message, raw);
  }
}
