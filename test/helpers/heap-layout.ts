/**
 * A hand-written Heap Connect folder, as Heap's S3 specification lays one out: `manifests/<n>.json`
 * and `sync_<dump_id>/<table>/part-<NNNNN>-<guid>-c000.avro` (snappy), written with the test's
 * own Avro writer (not avsc, the reader under test). Two complete dumps and one still being
 * written; the second dump resyncs `pageviews` whole (`incremental: false`): it drops event 103
 * and changes event 102's title. The rows are exported so tests compare every value with them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AvroSchema, writeAvro } from './avro-writer.js';

export const MICROS = { type: 'long', logicalType: 'timestamp-micros' } as const;
const optional = (type: AvroSchema): AvroSchema => ['null', type];
const some = (value: unknown) => (value === null ? null : { branch: 1, value });

const PAGEVIEW: AvroSchema = {
  type: 'record',
  name: 'pageviews',
  fields: [
    { name: 'event_id', type: 'long' },
    { name: 'user_id', type: 'long' },
    { name: 'session_id', type: 'long' },
    { name: 'time', type: MICROS },
    { name: 'session_time', type: MICROS },
    { name: 'domain', type: 'string' },
    { name: 'path', type: 'string' },
    { name: 'title', type: optional('string') },
    { name: 'referrer', type: optional('string') },
  ],
};

/** A synced event whose times Heap wrote as text. */
const SIGNUP: AvroSchema = {
  type: 'record',
  name: 'signup_click',
  fields: [
    { name: 'event_id', type: 'long' },
    { name: 'user_id', type: 'long' },
    { name: 'session_id', type: 'long' },
    { name: 'time', type: 'string' },
    { name: 'session_time', type: 'string' },
    { name: 'button', type: 'string' },
  ],
};

const USERS: AvroSchema = {
  type: 'record',
  name: 'users',
  fields: [
    { name: 'user_id', type: 'long' },
    { name: 'identity', type: optional('string') },
    { name: 'joindate', type: MICROS },
    { name: 'last_modified', type: MICROS },
    { name: 'email', type: optional('string') },
    { name: 'plan', type: optional('string') },
  ],
};

const MIGRATIONS: AvroSchema = {
  type: 'record',
  name: 'user_migrations',
  fields: [
    { name: 'from_user_id', type: 'long' },
    { name: 'to_user_id', type: 'long' },
    { name: 'time', type: MICROS },
  ],
};

export const SESSIONS: AvroSchema = {
  type: 'record',
  name: 'sessions',
  fields: [
    { name: 'session_id', type: 'long' },
    { name: 'user_id', type: 'long' },
    { name: 'time', type: MICROS },
  ],
};

/** 2024-03-01T10:00:00Z in microseconds. */
export const HEAP_BASE_US = 1709287200000000n;
const at = (minutes: number) => HEAP_BASE_US + BigInt(minutes) * 60_000_000n;

export type PageviewRow = {
  event_id: bigint;
  user_id: bigint;
  session_id: bigint;
  time: bigint;
  session_time: bigint;
  domain: string;
  path: string;
  title: string | null;
  referrer: string | null;
};

const pageview = (id: number, user: bigint, session: number, minute: number, title: string | null, referrer: string | null = null): PageviewRow => ({
  event_id: BigInt(id),
  user_id: user,
  session_id: BigInt(session),
  time: at(minute),
  session_time: at(Math.floor(minute / 30) * 30),
  domain: 'shop.example.com',
  path: `/p/${id}`,
  title,
  referrer,
});

/** Heap's ids: an anonymous user, one identified, and one Heap merged into the identified one. */
export const HEAP_USERS = { anonymous: 9007199254740993n, alice: 4001n, merged: 4002n, late: 4003n } as const;

export const HEAP_DUMPS = {
  1: {
    pageviews: [pageview(101, HEAP_USERS.anonymous, 7, 0, 'Home', 'https://search.example/'), pageview(102, HEAP_USERS.alice, 8, 5, 'Cart'), pageview(103, HEAP_USERS.merged, 9, 7, null)],
    signup_click: [{ event_id: 201n, user_id: HEAP_USERS.merged, session_id: 9n, time: '2024-03-01 10:08:00.250', session_time: '2024-03-01 10:00:00', button: 'Join' }],
    users: [
      { user_id: HEAP_USERS.anonymous, identity: null, joindate: at(0), last_modified: at(0), email: null, plan: null },
      { user_id: HEAP_USERS.alice, identity: 'alice@example.com', joindate: at(-600), last_modified: at(5), email: 'alice@example.com', plan: 'pro' },
      { user_id: HEAP_USERS.merged, identity: null, joindate: at(-1), last_modified: at(8), email: null, plan: 'free' },
    ],
    user_migrations: [{ from_user_id: HEAP_USERS.merged, to_user_id: HEAP_USERS.alice, time: at(9) }],
    sessions: [{ session_id: 7n, user_id: HEAP_USERS.anonymous, time: at(0) }],
  },
  2: {
    pageviews: [
      pageview(101, HEAP_USERS.anonymous, 7, 0, 'Home', 'https://search.example/'),
      pageview(102, HEAP_USERS.alice, 8, 5, 'Cart (2 items)'),
      pageview(104, HEAP_USERS.late, 10, 40, 'Checkout'),
    ],
    signup_click: [{ event_id: 202n, user_id: HEAP_USERS.late, session_id: 10n, time: '2024-03-01 10:41:00', session_time: '2024-03-01 10:30:00', button: 'Join now' }],
    users: [{ user_id: HEAP_USERS.late, identity: null, joindate: at(39), last_modified: at(41), email: null, plan: null }],
  },
} as const;

const SCHEMAS: Record<string, AvroSchema> = { pageviews: PAGEVIEW, signup_click: SIGNUP, users: USERS, user_migrations: MIGRATIONS, sessions: SESSIONS };
const NULLABLE = new Set(['identity', 'email', 'plan', 'title', 'referrer']);

/** The record as the Avro writer takes it: a union's value with its branch. */
function encodable(row: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, NULLABLE.has(key) ? some(value) : value]));
}

/** Writes one dump's tables (two parts for pageviews), and its manifest unless `manifest` is false. */
function writeDump(root: string, dumpId: number, tables: Readonly<Record<string, readonly object[]>>, full: ReadonlySet<string>, manifest = true): void {
  const listed = [];
  for (const [table, rows] of Object.entries(tables)) {
    const dir = join(root, `sync_${dumpId}`, table);
    mkdirSync(dir, { recursive: true });
    const parts = table === 'pageviews' && rows.length > 2 ? [rows.slice(0, 2), rows.slice(2)] : [rows];
    const files = parts.map((part, n) => {
      const name = `part-${String(n).padStart(5, '0')}-0c5e${dumpId}a7f-${table.length}b2d-c000.avro`;
      writeAvro(join(dir, name), SCHEMAS[table]!, part.map(encodable), { codec: 'snappy' });
      return `s3://heap-rs3-example/sync_${dumpId}/${table}/${name}`;
    });
    const columns = (SCHEMAS[table] as unknown as { fields: Array<{ name: string }> }).fields.map((f) => f.name);
    listed.push({ name: table, columns, files, incremental: !full.has(table) });
  }
  if (!manifest) return;
  mkdirSync(join(root, 'manifests'), { recursive: true });
  writeFileSync(
    join(root, 'manifests', `sync_${dumpId}.json`),
    `${JSON.stringify({ dump_id: dumpId, tables: listed, property_definitions: 's3://heap-rs3-example/property_definitions.json' }, null, 2)}\n`,
  );
}

/** The folder: dump 1, dump 2 (pageviews resynced whole) and sync_3 without its manifest yet. */
export function writeHeapFolder(root: string, dumps: ReadonlyArray<1 | 2> = [1, 2]): void {
  if (dumps.includes(1)) writeDump(root, 1, HEAP_DUMPS[1], new Set());
  if (dumps.includes(2)) writeDump(root, 2, HEAP_DUMPS[2], new Set(['pageviews']));
  writeDump(root, 3, { pageviews: [pageview(105, HEAP_USERS.late, 11, 90, 'Later')] }, new Set(), false);
}
