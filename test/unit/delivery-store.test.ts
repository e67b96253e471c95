/** Delivery records in a real staging file: send-order pages, checkpoints, runs, schema v2. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StagedEvent } from '../../src/events/staged-event.js';
import { uuidBytes } from '../../src/events/stable-uuid.js';
import { migrate, openDatabase } from '../../src/sqlite/database.js';
import { eventJson } from '../../src/delivery/event-encoding.js';
import { chunkStream } from '../../src/delivery/chunk-stream.js';
import { encodedEventJson } from '../../src/delivery/staged-json.js';
import { sendOrder } from '../../src/delivery/send-order.js';
import { bindProject, DeliveryCheckpoint, findProjectRecord, listDeadLetters, PendingEvents, totalStaged, type ProjectRecord } from '../../src/staging/delivery-store.js';
import { EventWriter } from '../../src/staging/event-writer.js';
import { latestUnfinishedRun, startRun, endRun, overrideRecorded } from '../../src/staging/import-runs.js';
import { beginRead, finishRead } from '../../src/staging/source-reads.js';
import { MIGRATIONS, STAGING_APPLICATION_ID } from '../../src/staging/staging-schema.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { useTempDir } from '../helpers/temp-dir.js';

const T0 = Date.UTC(2024, 0, 1);

function staged(i: number, kind: 0 | 1 | 2, timestampMs: number): StagedEvent {
  return { uuid: uuidBytes(`01900000-0000-7000-8000-${String(i).padStart(12, '0')}`), kind, event: kind === 1 ? '$identify' : 'e', distinctId: `u${i}`, timestampMs, propertiesJson: `{"i":${i}}` };
}

function stage(store: StagingStore, events: StagedEvent[]): void {
  const readId = beginRead(store, { path: '/src.csv', format: 'csv', command: 'test', sizeBytes: 1, options: {} });
  new EventWriter(store).write(
    readId,
    events.map((event, i) => ({ line: i + 2, raw: '', event })),
  );
  finishRead(store, readId, { rowsRead: events.length, staged: events.length, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0 }, undefined);
}

function allPages(pending: PendingEvents, pageSize: number): number[] {
  const seqs: number[] = [];
  let cursor: { kind: number; timestampMs: number; seq: number } | undefined;
  for (;;) {
    const page = pending.page(cursor, pageSize);
    if (page.length === 0) return seqs;
    seqs.push(...page.map((e) => e.seq));
    const last = page[page.length - 1]!;
    cursor = { kind: last.kind, timestampMs: last.timestampMs, seq: last.seq };
  }
}

describe('delivery store', () => {
  const tempDir = useTempDir();

  it('pages pending events in send order (kinds in their turn, then timestamp, seq) with their JSON, skipping delivered and dead letters', () => {
    const store = StagingStore.open(join(tempDir(), 'm.db'));
    // seq 1..8 in staging order; send order is group updates, person updates, events, each by time then seq
    stage(store, [staged(1, 1, T0), staged(2, 0, T0 + 5), staged(3, 0, T0), staged(4, 2, T0 - 9), staged(5, 0, T0), staged(6, 0, T0 + 5), staged(7, 1, T0 - 1), staged(8, 0, T0)]);
    const project = bindProject(store, { name: 'test', role: 'test', host: 'http://127.0.0.1:1' });
    const fresh = new PendingEvents(store, project.id);
    for (const size of [1, 2, 3, 100]) expect(allPages(fresh, size)).toEqual([4, 7, 1, 3, 5, 8, 2, 6]);
    // --people-last: events first, as before.
    const peopleLast = new PendingEvents(store, project.id, 1, sendOrder(true));
    for (const size of [1, 2, 3, 100]) expect(allPages(peopleLast, size)).toEqual([3, 5, 8, 2, 6, 7, 1, 4]);
    const [first] = peopleLast.page(undefined, 1);
    expect(first).toMatchObject({ seq: 3, kind: 0, timestampMs: T0 });
    expect(encodedEventJson(first!)).toBe(eventJson({ seq: 3, ...staged(3, 0, T0), uuid: '01900000-0000-7000-8000-000000000003' }));

    const run = startRun(store, { projectId: project.id, sample: undefined, skipTestFirst: false, settings: {}, configPath: undefined });
    const checkpoint = new DeliveryCheckpoint(store, project.id, run.id);
    checkpoint.delivered([3, 8, 6]);
    checkpoint.delivered([3]); // a repeat changes nothing
    checkpoint.deadLettered([{ seq: 7, status: 400, message: 'event submitted without a distinct_id' }]);
    // A later run (resume) skips what was settled, wherever it stands in send order.
    const resumed = new PendingEvents(store, project.id);
    for (const size of [1, 2, 100]) expect(allPages(resumed, size)).toEqual([4, 1, 5, 2]);
    expect(findProjectRecord(store, 'test')).toMatchObject({ delivered: 3, deadLetters: 1 });
    expect(latestUnfinishedRun(store)).toMatchObject({ id: run.id, project: 'test', delivered: 3, deadLetters: 1, status: 'running' });
    expect(listDeadLetters(store)).toEqual([
      { project: 'test', uuid: '01900000-0000-7000-8000-000000000007', event: '$identify', timestamp: new Date(T0 - 1).toISOString(), status: 400, message: 'event submitted without a distinct_id' },
    ]);
    expect(totalStaged(store)).toBe(8);
    store.close();
  });

  it('gives each page as one blob of event JSON, or by rows where the bytes are not UTF-8: the same chunks either way', () => {
    const store = StagingStore.open(join(tempDir(), 'm.db'));
    const events = Array.from({ length: 60 }, (_, i) => ({ ...staged(i + 1, (i % 7 === 0 ? 1 : 0) as 0 | 1, T0 + (i % 9) * 1000), event: `é${i % 4}`, propertiesJson: `{"n":${i},"s":"ü😀\\n"}` }));
    stage(store, events);
    // Bytes that are not UTF-8 (only a damaged or hand-edited file has them): read as text, they were U+FFFD.
    store.db.exec("UPDATE events SET distinct_id = CAST(x'75ff' AS TEXT) WHERE seq IN (5, 40)");
    const project = bindProject(store, { name: 'test', role: 'test', host: 'http://127.0.0.1:1' });
    const limits = { maxEvents: 7, maxBytes: 1500, overheadBytes: 60 };
    const chunks = (pending: PendingEvents) => [...chunkStream(pending, limits)].map((c) => ({ ...c, eventsJson: c.eventsJson.toString('utf8') }));
    const byRows = new PendingEvents(store, project.id);
    Object.assign(byRows, { readPage: Reflect.get(byRows, 'readRows') as unknown });
    const read = chunks(new PendingEvents(store, project.id, 4));
    expect(read).toEqual(chunks(byRows));
    expect(read.flatMap((c) => c.seqs)).toHaveLength(60);
    expect(read.map((c) => c.eventsJson).join()).toContain('"distinct_id":"u\ufffd"');
    const kinds = new PendingEvents(store, project.id).page(undefined, 100).map((e) => ('head' in e ? 'rows' : 'blob'));
    expect(kinds.filter((k) => k === 'blob').length).toBeGreaterThan(0); // the kind without seq 5 or 40 came as a blob
    store.close();
  });

  it('skips rows settled before the run whether they were delivered or dead-lettered, per project', () => {
    const store = StagingStore.open(join(tempDir(), 'm.db'));
    stage(
      store,
      [1, 2, 3, 4].map((i) => staged(i, 0, T0 + i)),
    );
    const [a, b] = ['a', 'b'].map((name) => bindProject(store, { name, role: 'test', host: 'http://127.0.0.1:1' })) as [ProjectRecord, ProjectRecord];
    const run = startRun(store, { projectId: a.id, sample: undefined, skipTestFirst: false, settings: {}, configPath: undefined });
    new DeliveryCheckpoint(store, a.id, run.id).deadLettered([{ seq: 4, status: 413, message: 'too large' }]);
    new DeliveryCheckpoint(store, b.id, run.id).delivered([2]);
    expect(allPages(new PendingEvents(store, a.id), 2)).toEqual([1, 2, 3]);
    expect(allPages(new PendingEvents(store, b.id), 2)).toEqual([1, 3, 4]);
    store.close();
  });

  it('records a chunk of deliveries in one statement, counting only new rows', () => {
    const store = StagingStore.open(join(tempDir(), 'm.db'));
    stage(
      store,
      Array.from({ length: 2000 }, (_, i) => staged(i + 1, 0, T0 + i)),
    );
    const project = bindProject(store, { name: 'p', role: 'test', host: 'http://127.0.0.1:1' });
    const run = startRun(store, { projectId: project.id, sample: undefined, skipTestFirst: false, settings: {}, configPath: undefined });
    const checkpoint = new DeliveryCheckpoint(store, project.id, run.id);
    const seqs = Array.from({ length: 1500 }, (_, i) => 2000 - i);
    checkpoint.delivered(seqs);
    checkpoint.delivered([1, 500, 501, 2000]); // 1 and 500 are new
    expect(findProjectRecord(store, 'p')).toMatchObject({ delivered: 1502 });
    expect(latestUnfinishedRun(store)).toMatchObject({ delivered: 1502 });
    expect(allPages(new PendingEvents(store, project.id), 1000)).toEqual(Array.from({ length: 498 }, (_, i) => i + 2));
    store.close();
  });

  it('binds a project to its first host once it accepted something', () => {
    const store = StagingStore.open(join(tempDir(), 'm.db'));
    stage(store, [staged(1, 0, T0)]);
    const first = bindProject(store, { name: 'p', role: 'test', host: 'http://127.0.0.1:1' });
    expect(bindProject(store, { name: 'p', role: 'test', host: 'http://127.0.0.1:2' }).host).toBe('http://127.0.0.1:2');
    const run = startRun(store, { projectId: first.id, sample: 5, skipTestFirst: true, settings: { concurrency: 2 }, configPath: '/c.json' });
    new DeliveryCheckpoint(store, first.id, run.id).delivered([1]);
    expect(bindProject(store, { name: 'p', role: 'production', host: 'http://127.0.0.1:3' })).toMatchObject({ host: 'http://127.0.0.1:2', role: 'test' });
    expect(overrideRecorded(store, first.id)).toBe(run.startedAt);
    endRun(store, run.id, 'done');
    expect(latestUnfinishedRun(store)).toBeUndefined();
    store.close();
  });

  it('a new run supersedes unfinished ones of the same project', () => {
    const store = StagingStore.open(join(tempDir(), 'm.db'));
    const p = bindProject(store, { name: 'p', role: 'test', host: 'http://127.0.0.1:1' });
    const old = startRun(store, { projectId: p.id, sample: undefined, skipTestFirst: false, settings: {}, configPath: undefined });
    endRun(store, old.id, 'interrupted');
    const fresh = startRun(store, { projectId: p.id, sample: 10, skipTestFirst: false, settings: { chunkEvents: 5 }, configPath: '/x' });
    expect(latestUnfinishedRun(store, 'p')).toMatchObject({ id: fresh.id, sample: 10, settings: { chunkEvents: 5 }, configPath: '/x' });
    endRun(store, fresh.id, 'done');
    expect(latestUnfinishedRun(store, 'p')).toBeUndefined();
    store.close();
  });

  it('upgrades a v1 staging file, counting its deliveries', () => {
    const file = join(tempDir(), 'old.db');
    const db = openDatabase(file);
    migrate(db, MIGRATIONS.slice(0, 1));
    db.pragma(`application_id = ${STAGING_APPLICATION_ID}`);
    db.prepare("INSERT INTO projects (name, role, host, created_at) VALUES ('t', 'test', 'http://127.0.0.1:1', 'x')").run();
    for (const seq of [1, 2, 3]) db.prepare('INSERT INTO deliveries (project_id, seq) VALUES (1, ?)').run(seq);
    db.close();
    const store = StagingStore.open(file);
    expect(store.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(findProjectRecord(store, 't')).toMatchObject({ delivered: 3, deadLetters: 0 });
    store.close();
  });
});
