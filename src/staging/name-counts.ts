/** Staged-event counts per (kind, name), kept as events are written so status never scans the events. */
import type { Statement } from '../sqlite/database.js';
import type { EventBatch } from './event-batch.js';

/** Staged-event counts per (kind, name), added to event_names once per batch. */
export class NameCounts {
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
