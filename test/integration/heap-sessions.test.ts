/**
 * Heap sessions whose event rows carry no start (no `session_time`, or one counting seconds
 * within the session): each session's `$session_id` is a UUIDv7 whose time is the session's
 * first event, the same whatever order or runs the dumps were staged in, and fixed once a
 * project received one of the session's events.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { heapSessionUuid } from '../../src/sources/vendors/heap-session.js';
import { type AvroSchema, writeAvro } from '../helpers/avro-writer.js';
import { MICROS, SESSIONS } from '../helpers/heap-layout.js';
import { stagingIn, type Staging } from '../helpers/export-source.js';
import { collectHeapSessionRows } from '../../src/staging/heap-session-store.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { FIXTURES, runCli } from '../helpers/run-cli.js';
import { storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { FAST, readStaging } from '../helpers/staging.js';
import { STAGED_PROPERTIES_TEXT } from '../helpers/staged-properties.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();

const pageviewSchema = (withElapsed: boolean): AvroSchema => ({
  type: 'record',
  name: 'pageviews',
  fields: [
    { name: 'event_id', type: 'long' },
    { name: 'user_id', type: 'long' },
    { name: 'session_id', type: 'long' },
    { name: 'time', type: MICROS },
    ...(withElapsed ? [{ name: 'session_time', type: 'long' }] : []),
    { name: 'path', type: 'string' },
  ],
});
/** 2024-05-01T08:00:00Z in ms. */
const BASE_MS = 1714550400000;
/** Ten users (one past 2^53), two sessions each: 20 sessions. */
const USERS = [...Array.from({ length: 9 }, (_, i) => BigInt(5000 + i)), 9007199254740993n];

interface Pageview {
  event_id: bigint;
  user_id: bigint;
  session_id: bigint;
  time: bigint;
  session_time?: bigint;
  path: string;
}

/** Session s of user u starts at minute 60*s + u and has events 0, 3 and 7 minutes in; `late` holds each session's minute-1 event (later dump, earlier time). */
function pageviews(withElapsed: boolean): { early: Pageview[]; late: Pageview[] } {
  const early: Pageview[] = [];
  const late: Pageview[] = [];
  let id = 1;
  USERS.forEach((user, u) => {
    for (const s of [0, 1]) {
      const startMin = 60 * s + u;
      const row = (offset: number): Pageview => ({
        event_id: BigInt(id++),
        user_id: user,
        session_id: BigInt(100 + s),
        time: BigInt(BASE_MS + (startMin + offset) * 60_000) * 1000n,
        ...(withElapsed ? { session_time: BigInt(offset * 60) } : {}),
        path: `/u${u}/s${s}/${offset}`,
      });
      // Each session's first event (offset 0) is in the later dump when `s` is 1.
      for (const offset of [3, 7]) early.push(row(offset));
      (s === 1 ? late : early).push(row(0));
    }
  });
  return { early, late };
}

function writeDump(root: string, dumpId: number, rows: Pageview[], withElapsed: boolean, sessions: object[]): void {
  const files = [];
  for (const [table, schema, records] of [
    ['pageviews', pageviewSchema(withElapsed), rows],
    ['sessions', SESSIONS, sessions],
  ] as const) {
    const dir = join(root, `sync_${dumpId}`, table);
    mkdirSync(dir, { recursive: true });
    // Rows in reverse time order: the pass, not the file order, finds each session's first event.
    writeAvro(join(dir, 'part-00000-c000.avro'), schema, [...records].reverse(), { codec: 'snappy' });
    files.push({ name: table, files: [`s3://heap-example/sync_${dumpId}/${table}/part-00000-c000.avro`], incremental: true });
  }
  mkdirSync(join(root, 'manifests'), { recursive: true });
  writeFileSync(join(root, 'manifests', `sync_${dumpId}.json`), JSON.stringify({ dump_id: dumpId, tables: files }));
}

function writeFolder(root: string, dumps: ReadonlyArray<1 | 2>, withElapsed = false): void {
  const { early, late } = pageviews(withElapsed);
  const sessionRows = (rows: Pageview[]) => rows.map((r) => ({ session_id: r.session_id, user_id: r.user_id, time: r.time }));
  if (dumps.includes(1)) writeDump(root, 1, early, withElapsed, sessionRows(early.filter((r) => r.path.endsWith('/0'))));
  if (dumps.includes(2)) writeDump(root, 2, late, withElapsed, sessionRows(late));
}

async function stageHeap(target: Staging, folder: string) {
  const result = await runCli(['export-source', '--from', 'heap', folder, '--staging', target.staging], { cwd: target.dir });
  expect(result.code, result.stderr).toBe(0);
  return result;
}

function content(staging: string) {
  return readStaging(staging, (db) =>
    db.prepare(`SELECT hex(uuid) AS uuid, event, distinct_id, timestamp_ms, json_remove(${STAGED_PROPERTIES_TEXT}, '$."$import_run"') AS p FROM events ORDER BY uuid`).all(),
  );
}

/** The ms in a UUIDv7's first 48 bits. */
function v7Ms(uuid: string): number {
  return Number.parseInt(uuid.replaceAll('-', '').slice(0, 12), 16);
}

/** Each session's first event, by `user/session`. */
function firstEvents(): Map<string, number> {
  const { early, late } = pageviews(false);
  const first = new Map<string, number>();
  for (const row of [...early, ...late]) {
    const key = `${row.user_id}/${row.session_id}`;
    const ms = Number(row.time / 1000n);
    first.set(key, Math.min(first.get(key) ?? ms, ms));
  }
  return first;
}

describe('Heap sessions without a start on the rows', () => {
  it('gives each of 20 sessions one UUIDv7 whose time is its first event, the same staged at once or dump by dump', async () => {
    const dir = tempDir();
    const folder = join(dir, 'heap');
    writeFolder(folder, [1]);
    const stepwise = stagingIn(dir);
    await stageHeap(stepwise, folder);
    writeFolder(folder, [2]);
    const second = await stageHeap(stepwise, folder);
    expect(second.stdout).toContain('Heap sessions started by their first event');
    const atOnce = { dir, staging: join(dir, 'at-once.db') };
    await stageHeap(atOnce, folder);
    expect(content(stepwise.staging)).toEqual(content(atOnce.staging));

    const first = firstEvents();
    const events = readStagedEvents(atOnce.staging).filter((e) => e.event === '$pageview');
    expect(events).toHaveLength(60);
    const ids = new Map<string, string>();
    for (const event of events) {
      const key = `${event.distinct_id}/${event.properties.session_id}`;
      const id = event.properties.$session_id as string;
      expect(id).toBe(heapSessionUuid(event.distinct_id, String(event.properties.session_id), first.get(key)!));
      expect(v7Ms(id)).toBe(first.get(key));
      expect(ids.get(key) ?? id).toBe(id);
      ids.set(key, id);
    }
    expect(new Set(ids.values()).size).toBe(20);
    expect(ids.has('9007199254740993/100')).toBe(true);
  });

  it('does not read a session_time that counts seconds within the session as its start', async () => {
    const target = stagingIn(tempDir());
    const folder = join(target.dir, 'heap');
    writeFolder(folder, [1, 2], true);
    await stageHeap(target, folder);
    const first = firstEvents();
    for (const event of readStagedEvents(target.staging).filter((e) => e.event === '$pageview')) {
      expect(v7Ms(event.properties.$session_id as string)).toBe(first.get(`${event.distinct_id}/${event.properties.session_id}`));
    }
  });

  it("keeps a delivered session's id when a later dump brings an earlier event of it", async () => {
    const sandbox = await sandboxAt();
    const target = stagingIn(tempDir());
    const folder = join(target.dir, 'heap');
    writeFolder(folder, [1]);
    await stageHeap(target, folder);
    const before = new Map(readStagedEvents(target.staging).map((e) => [`${e.distinct_id}/${e.properties.session_id}`, e.properties.$session_id as string]));
    const config = writeSandboxConfig(target.dir, sandbox);
    const imported = await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir });
    expect(imported.code, imported.stderr).toBe(0);

    writeFolder(folder, [2]);
    await stageHeap(target, folder);
    const after = readStagedEvents(target.staging).filter((e) => e.event === '$pageview');
    expect(after).toHaveLength(60);
    for (const event of after) expect(event.properties.$session_id).toBe(before.get(`${event.distinct_id}/${event.properties.session_id}`));
    const again = await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(new Set(storedEvents(sandbox, 1).map((e) => JSON.parse(e.properties).$session_id)).size).toBe(20);
  });

  it("reads no other source's properties when it looks for Heap rows", async () => {
    const target = stagingIn(tempDir());
    const folder = join(target.dir, 'heap');
    writeFolder(folder, [1]);
    const csv = await runCli(['export-source', '--from', 'csv', join(FIXTURES, 'sample-events.csv'), '--staging', target.staging], { cwd: target.dir });
    expect(csv.code, csv.stderr).toBe(0);
    const propertiesRead = (): number => {
      const store = StagingStore.open(target.staging, { mustExist: true });
      try {
        // Each call is one row's properties unpacked; answering null leaves the rows' table as it is.
        let calls = 0;
        store.db.function('event_properties', (_ref: unknown, _data: unknown) => {
          calls++;
          return null;
        });
        collectHeapSessionRows(store, 0);
        return calls;
      } finally {
        store.close();
      }
    };
    // Before: every CSV row's properties were unpacked, to be dropped by the join to its read.
    expect(propertiesRead()).toBe(0);
    await stageHeap(target, folder);
    const heapRows = readStaging(target.staging, (db) =>
      db.prepare(`SELECT count(*) FROM events e JOIN source_reads r ON r.id = e.read_id JOIN sources s ON s.id = r.source_id WHERE s.format = 'heap' AND e.kind = 0`).pluck().get(),
    );
    expect(heapRows).toBeGreaterThan(0);
    expect(propertiesRead()).toBe(heapRows);
  });
});
