/**
 * Writes batches of staged events and rejects, one transaction per batch. A uuid already in
 * the file is not written again: identical content is counted (already staged, or a duplicate
 * row of this same read); different content is a reject, because sending both would put two
 * versions of one event into PostHog.
 */
import { canonicalJson } from '../events/canonical-json.js';
import type { RowProblem } from '../events/reject-reasons.js';
import type { StagedEvent } from '../events/staged-event.js';
import type { Statement } from '../sqlite/database.js';
import type { StagingStore } from './staging-store.js';
import { uuidToBytes } from './uuid-bytes.js';

export type StageEntry =
  | { line: number; raw: string; event: StagedEvent }
  | { line: number; raw: string; problem: RowProblem };

export interface BatchCounts {
  staged: number;
  alreadyStaged: number;
  duplicates: number;
  /** Every reject written, those given in the batch and the conflicts found while writing. */
  rejected: number;
  /** Rows whose uuid was staged earlier with different content (also counted in rejected). */
  conflicts: Array<{ line: number; problem: RowProblem }>;
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
  return canonicalJson(JSON.parse(a)) === canonicalJson(JSON.parse(b));
}

export class EventWriter {
  private readonly insertEvent: Statement;
  private readonly findEvent: Statement;
  private readonly insertReject: Statement;
  private readonly countName: Statement;

  constructor(private readonly store: StagingStore) {
    const db = store.db;
    this.insertEvent = db.prepare(
      `INSERT INTO events (uuid, kind, event, distinct_id, timestamp_ms, properties, read_id, line)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (uuid) DO NOTHING`,
    );
    this.findEvent = db.prepare(
      `SELECT e.kind, e.event, e.distinct_id, e.timestamp_ms, e.properties, e.read_id, e.line, s.path
       FROM events e JOIN source_reads r ON r.id = e.read_id JOIN sources s ON s.id = r.source_id WHERE e.uuid = ?`,
    );
    this.insertReject = db.prepare('INSERT INTO rejects (read_id, line, field, reason, message, raw) VALUES (?, ?, ?, ?, ?, ?)');
    this.countName = db.prepare(
      'INSERT INTO event_names (kind, name, count) VALUES (?, ?, ?) ON CONFLICT (kind, name) DO UPDATE SET count = count + excluded.count',
    );
  }

  /** Stages one batch for read `readId` in a single transaction. */
  write(readId: number, entries: readonly StageEntry[]): BatchCounts {
    return this.store.transaction(() => {
      const counts: BatchCounts = { staged: 0, alreadyStaged: 0, duplicates: 0, rejected: 0, conflicts: [] };
      const names = new Map<string, { kind: number; name: string; count: number }>();
      for (const entry of entries) {
        if ('problem' in entry) {
          this.reject(readId, entry.line, entry.problem, entry.raw);
          counts.rejected++;
          continue;
        }
        const e = entry.event;
        const uuid = uuidToBytes(e.uuid);
        if (this.insertEvent.run(uuid, e.kind, e.event, e.distinctId, e.timestampMs, e.propertiesJson, readId, entry.line).changes === 1) {
          counts.staged++;
          const key = `${e.kind}\u0000${e.event}`;
          const named = names.get(key);
          if (named) named.count++;
          else names.set(key, { kind: e.kind, name: e.event, count: 1 });
          continue;
        }
        const existing = this.findEvent.get(uuid) as ExistingRow;
        const differs = difference(existing, e);
        if (differs === undefined) {
          if (existing.read_id === readId) counts.duplicates++;
          else counts.alreadyStaged++;
          continue;
        }
        const message = `uuid ${e.uuid} was staged from ${existing.path}:${existing.line} with a different ${differs}; the earlier version is kept`;
        const conflict: RowProblem = { field: 'uuid', reason: 'conflicts_with_staged', message };
        this.reject(readId, entry.line, conflict, entry.raw);
        counts.rejected++;
        counts.conflicts.push({ line: entry.line, problem: conflict });
      }
      for (const { kind, name, count } of names.values()) this.countName.run(kind, name, count);
      return counts;
    });
  }

  private reject(readId: number, line: number, problem: RowProblem, raw: string): void {
    this.insertReject.run(readId, line, problem.field, problem.reason, problem.message, raw);
  }
}
