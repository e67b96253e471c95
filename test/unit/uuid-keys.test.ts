/**
 * The uuid to seq mapping on real staging files: repeated and conflicting rows found the same
 * whether the row they repeat is in the recent table or merged into the permanent one, merges
 * within a read and at its end, a process killed between merges, withdrawn rows leaving the
 * mapping, and files of the layout before it (events.uuid UNIQUE) upgraded with their mapping.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventKind, type StagedEvent } from '../../src/events/staged-event.js';
import { uuidBytes } from '../../src/events/stable-uuid.js';
import { migrate, openDatabase } from '../../src/sqlite/database.js';
import { type EventBatch, EventBatchBuilder } from '../../src/staging/event-batch.js';
import { type BatchCounts, EventWriter, type StageEntry } from '../../src/staging/event-writer.js';
import { beginRead, finishRead } from '../../src/staging/source-reads.js';
import { MIGRATIONS, STAGING_APPLICATION_ID } from '../../src/staging/staging-schema.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { mergedBoundRows, uuidKeys } from '../../src/staging/uuid-keys.js';
import { selectRow, withdrawSelected } from '../../src/staging/withdrawals.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const done = { rowsRead: 0, staged: 0, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0 };

/** Random-looking uuids (version 4), not in time order, as Amplitude gives them. */
function uuidOf(n: number): Uint8Array {
  const hex = ((n * 2_654_435_761) % 2 ** 32).toString(16).padStart(8, '0');
  return uuidBytes(`${hex}-${n.toString(16).padStart(4, '0')}-4000-8000-000000000000`);
}

function event(n: number, name = 'e'): StagedEvent {
  return { uuid: uuidOf(n), kind: EventKind.event, event: name, distinctId: 'd', timestampMs: 1_700_000_000_000 + n, propertiesJson: `{"n":${n}}` };
}

function rows(ns: readonly number[], name = 'e'): StageEntry[] {
  return ns.map((n, i) => ({ line: i + 1, raw: `raw ${n}`, event: event(n, name) }));
}

function batchOf(ns: readonly number[]): EventBatch {
  const builder = new EventBatchBuilder();
  ns.forEach((n, i) => builder.add(i + 1, event(n)));
  return builder.finish();
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

function read(store: StagingStore, path = '/data/a.json'): number {
  return beginRead(store, { path, format: 'json', command: 'export-source', sizeBytes: 1, options: {} });
}

function tableRows(store: StagingStore, table: string): number {
  return store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
}

/** Rows in uuid_keys, uuid_merged and uuid_recent. */
function levels(store: StagingStore): number[] {
  return ['uuid_keys', 'uuid_merged', 'uuid_recent'].map((table) => tableRows(store, table));
}

/** Every staged row is in the mapping once, with its own seq, and nothing else is. */
function expectMappingExact(store: StagingStore): void {
  const events = tableRows(store, 'events');
  expect(tableRows(store, 'event_uuids')).toBe(events);
  const matched = store.db.prepare('SELECT count(*) FROM events e JOIN event_uuids u ON u.uuid = e.uuid AND u.seq = e.seq').pluck().get();
  expect(matched).toBe(events);
}

function counts(c: BatchCounts): Omit<BatchCounts, 'conflicts'> & { conflictLines: number[] } {
  return { staged: c.staged, alreadyStaged: c.alreadyStaged, duplicates: c.duplicates, rejected: c.rejected, conflictLines: c.conflicts.map((x) => x.line) };
}

describe('the uuid mapping', () => {
  it('gives a new file an events table with no index on uuid, and the mapping tables', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    const indexes = store.db.prepare("SELECT name FROM pragma_index_list('events')").pluck().all();
    expect(indexes).toEqual(['events_send_order']);
    expect(tableRows(store, 'uuid_keys')).toBe(0);
    store.close();
  });

  // Each case: batches of one read, the bound of recent rows, and what the last batch counts.
  const cases: Array<{ name: string; bound: number; batches: StageEntry[][]; last: ReturnType<typeof counts>; merged: boolean }> = [
    {
      name: 'a repeat within one batch, nothing merged',
      bound: 1000,
      batches: [rows([1, 2, 3, 2])],
      last: { staged: 3, alreadyStaged: 0, duplicates: 1, rejected: 0, conflictLines: [] },
      merged: false,
    },
    {
      name: 'repeats of a read across a merge within it',
      bound: 3,
      batches: [rows(range(0, 10)), rows([4, 5, 11])],
      last: { staged: 1, alreadyStaged: 0, duplicates: 2, rejected: 0, conflictLines: [] },
      merged: true,
    },
    {
      name: 'conflicting rows across a merge within the read',
      bound: 3,
      batches: [rows(range(0, 10)), rows([4, 12], 'renamed')],
      last: { staged: 1, alreadyStaged: 0, duplicates: 0, rejected: 1, conflictLines: [1] },
      merged: true,
    },
    {
      name: 'groups of fifty with one row staged before and one repeated inside',
      bound: 20,
      batches: [rows(range(0, 30)), rows([...range(100, 120), 7, ...range(120, 140), 130, ...range(140, 150)])],
      last: { staged: 50, alreadyStaged: 0, duplicates: 2, rejected: 0, conflictLines: [] },
      merged: true,
    },
  ];
  for (const c of cases) {
    it(`counts ${c.name} as without the mapping`, () => {
      const store = StagingStore.open(join(tempDir(), 's.db'));
      uuidKeys(store).boundRows = c.bound;
      const writer = new EventWriter(store);
      const readId = read(store);
      let last: BatchCounts | undefined;
      for (const batch of c.batches) last = writer.write(readId, batch);
      expect(counts(last!)).toEqual(c.last);
      expect(levels(store)[2]! < tableRows(store, 'events')).toBe(c.merged);
      expectMappingExact(store);
      finishRead(store, readId, done, undefined);
      expect(tableRows(store, 'uuid_recent')).toBe(0);
      expectMappingExact(store);
      store.close();
    });
  }

  it('finds rows of earlier reads, merged at their end, as already staged or conflicting', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    const writer = new EventWriter(store);
    const first = read(store);
    writer.write(first, rows(range(0, 60)));
    finishRead(store, first, done, undefined);
    expect(levels(store)).toEqual([0, 60, 0]);

    const second = read(store, '/data/b.json');
    expect(counts(writer.write(second, rows([...range(50, 110)])))).toEqual({ staged: 50, alreadyStaged: 10, duplicates: 0, rejected: 0, conflictLines: [] });
    const changed = writer.write(second, rows([3, 200], 'renamed'));
    expect(counts(changed)).toEqual({ staged: 1, alreadyStaged: 0, duplicates: 0, rejected: 1, conflictLines: [1] });
    expect(changed.conflicts[0]!.problem.message).toContain('was staged from /data/a.json:4 with a different event name');
    expectMappingExact(store);
    store.close();
  });

  it('finds repeats and conflicts in each of the three tables, a merge moving rows down as they grow', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    uuidKeys(store).boundRows = 10;
    const writer = new EventWriter(store);
    const readId = read(store);
    // 20 rows: past the bound, merged, and uuid_merged (bound 10 while uuid_keys is empty) goes down.
    writer.write(readId, rows(range(0, 20)));
    expect(levels(store)).toEqual([20, 0, 0]);
    // 11 more: merged into uuid_merged, which stays (its bound is now sqrt(20 * 10) > 11).
    writer.write(readId, rows(range(20, 31)));
    expect(levels(store)).toEqual([20, 11, 0]);
    writer.write(readId, rows(range(31, 35)));
    expect(levels(store)).toEqual([20, 11, 4]);
    const again = writer.write(readId, [...rows([5, 25, 33]), ...rows([6, 26, 34], 'renamed')]);
    expect(counts(again)).toEqual({ staged: 0, alreadyStaged: 0, duplicates: 3, rejected: 3, conflictLines: [1, 2, 3] });
    expectMappingExact(store);
    store.close();
  });

  it('bounds uuid_merged by the geometric mean of uuid_keys and the recent bound', () => {
    expect([0, 100, 10_000].map((keys) => mergedBoundRows(keys, 100))).toEqual([100, 100, 1000]);
  });

  it('resumes a read killed between merges with the recent uuids as committed', () => {
    const path = join(tempDir(), 's.db');
    let store = StagingStore.open(path);
    uuidKeys(store).boundRows = 25;
    const readId = read(store);
    new EventWriter(store).write(readId, rows(range(0, 40)));
    new EventWriter(store).write(readId, rows(range(40, 50)));
    // Killed: no finishRead, the connection gone with its counts.
    store.close();
    store = StagingStore.open(path);
    expect(levels(store)).toEqual([40, 0, 10]);
    const again = new EventWriter(store).write(readId, rows(range(35, 55)));
    expect(counts(again)).toEqual({ staged: 5, alreadyStaged: 0, duplicates: 15, rejected: 0, conflictLines: [] });
    expectMappingExact(store);
    store.close();
  });

  // Inside a savepoint SQLite would keep a copy of every page the merge rewrites (in memory).
  it('merges once no savepoint is open, in the same transaction: batches within a shared transaction, a read finished inside another', async () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    uuidKeys(store).boundRows = 10;
    const writer = new EventWriter(store);
    const readId = read(store);
    const seen: number[][] = [];
    writer.openShared();
    await writer.inTransaction(async () => {
      writer.writeBatch(readId, batchOf(range(0, 20)), []);
      seen.push(levels(store));
    });
    seen.push(levels(store));
    store.transaction(() => {
      writer.writeBatch(readId, batchOf(range(20, 25)), []);
      store.transaction(() => finishRead(store, readId, done, undefined));
      seen.push(levels(store));
    });
    seen.push(levels(store));
    expect(store.db.inTransaction).toBe(true);
    writer.commitShared();
    expect(seen).toEqual([
      [0, 0, 20],
      [20, 0, 0],
      [20, 0, 5],
      [20, 5, 0],
    ]);
    expectMappingExact(store);
    store.close();
  });

  it('drops a merge asked for in a savepoint that is undone, and merges when asked again', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    uuidKeys(store).boundRows = 10;
    const writer = new EventWriter(store);
    const readId = read(store);
    store.transaction(() => {
      expect(() =>
        store.transaction(() => {
          writer.writeBatch(readId, batchOf(range(0, 20)), []);
          throw new Error('undone');
        }),
      ).toThrow('undone');
      expect(levels(store)).toEqual([0, 0, 0]);
      writer.writeBatch(readId, batchOf(range(20, 40)), []);
    });
    expect(levels(store)).toEqual([20, 0, 0]);
    expectMappingExact(store);
    store.close();
  });

  it('takes withdrawn rows out of the mapping, so their uuids stage again', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    uuidKeys(store).boundRows = 2;
    const writer = new EventWriter(store);
    const first = read(store);
    writer.write(first, rows([1, 2, 3, 4]));
    writer.write(first, rows([5]));
    const seqs = store.db.prepare('SELECT seq FROM events ORDER BY seq').pluck().all() as number[];
    // One merged, one recent.
    for (const seq of [seqs[0]!, seqs[4]!]) {
      selectRow(store, seq);
      withdrawSelected(store, first, 'replaced');
    }
    expectMappingExact(store);
    expect(counts(writer.write(first, rows([1, 5, 2])))).toEqual({ staged: 2, alreadyStaged: 0, duplicates: 1, rejected: 0, conflictLines: [] });
    expectMappingExact(store);
    store.close();
  });

  it('fills the mapping of a file staged with the UNIQUE index, and finds its rows', () => {
    const path = join(tempDir(), 'old.db');
    const db = openDatabase(path);
    migrate(db, MIGRATIONS.slice(0, 16));
    db.pragma(`application_id = ${STAGING_APPLICATION_ID}`);
    db.prepare("INSERT INTO sources (id, path, format) VALUES (1, '/data/a.json', 'json')").run();
    db.prepare("INSERT INTO source_reads (id, source_id, command, status, size_bytes, started_at) VALUES (1, 1, 'export-source', 'done', 1, 'x')").run();
    const insert = db.prepare("INSERT INTO events (uuid, kind, event, distinct_id, timestamp_ms, properties, read_id, line) VALUES (?, 0, 'e', 'd', ?, jsonb(?), 1, ?)");
    for (const n of range(0, 30)) insert.run(uuidOf(n), 1_700_000_000_000 + n, `{"n":${n}}`, n + 1);
    db.close();

    const store = StagingStore.open(path);
    expect(store.db.prepare('SELECT name FROM pragma_index_list(\'events\') WHERE "unique" = 1').pluck().all()).toHaveLength(1);
    expect(levels(store)).toEqual([30, 0, 0]);
    const second = read(store, '/data/b.json');
    const writer = new EventWriter(store);
    expect(counts(writer.write(second, rows(range(20, 80))))).toEqual({ staged: 50, alreadyStaged: 10, duplicates: 0, rejected: 0, conflictLines: [] });
    expect(counts(writer.write(second, rows([5], 'renamed')))).toMatchObject({ rejected: 1, conflictLines: [1] });
    expectMappingExact(store);
    store.close();
  });
});
