#!/usr/bin/env node
// What random uuids cost the staging file's unique uuid index, in isolation: rows of a 16-byte
// random key and 300 bytes, with the writer's settings (16 KiB pages, 16 MiB cache, WAL, a commit
// every 4,096 rows), either into a unique index row by row (how events.uuid is kept today) or
// appended with no index and then settled by one sorted pass into a (uuid, seq) table, or kept as
// the staging writer keeps them since schema 17 (mapped: each uuid looked up in uuid_keys and
// uuid_merged and claimed in uuid_recent, merged down in key order past the same bounds; see
// docs/performance.md). Prints one JSON line: CPU, wall and bytes written.
// Usage: node bench/uuid-index-cost.mjs <unique|sorted|mapped> [rows=2000000] [dir=/tmp]
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

const [mode, rowsArg, dir = '/tmp'] = process.argv.slice(2);
if (mode !== 'unique' && mode !== 'sorted' && mode !== 'mapped') {
  console.error('usage: node bench/uuid-index-cost.mjs <unique|sorted|mapped> [rows] [dir]');
  process.exit(2);
}
const rows = Number(rowsArg ?? 2_000_000);
const COMMIT_ROWS = 4096;
const file = join(dir, `uuid-index-cost-${process.pid}.db`);
const files = [file, `${file}-wal`, `${file}-shm`];
const writtenBytes = () => Number(/write_bytes: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? 0);

const db = new Database(file);
db.pragma('page_size = 16384');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('cache_size = -16384');
if (mode === 'unique') db.exec('CREATE TABLE e (seq INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, p TEXT NOT NULL)');
else db.exec('CREATE TABLE e (seq INTEGER PRIMARY KEY, uuid BLOB NOT NULL, p TEXT NOT NULL); CREATE TABLE u (uuid BLOB PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;');
if (mode === 'mapped') {
  for (const t of ['uuid_merged', 'uuid_recent']) db.exec(`CREATE TABLE ${t} (uuid BLOB PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID`);
}
const insert = db.prepare(`INSERT INTO e (uuid, p) VALUES (?, ?)${mode === 'unique' ? ' ON CONFLICT (uuid) DO NOTHING' : ''}`);
const payload = 'x'.repeat(300);
const RECENT_BOUND = 256 * 1024;
const level = { recent: 0, merged: 0, keys: 0 };
const claim =
  mode === 'mapped'
    ? db.prepare(
        `INSERT INTO uuid_recent (uuid, seq) SELECT @uuid, @seq WHERE NOT EXISTS (SELECT 1 FROM u WHERE uuid = @uuid)
         AND NOT EXISTS (SELECT 1 FROM uuid_merged WHERE uuid = @uuid) ON CONFLICT DO NOTHING`,
      )
    : undefined;
/** The writer's merges (src/staging/uuid-keys.ts): recent into merged past the bound, merged into keys past sqrt(keys * bound). */
function settle() {
  if (level.recent <= RECENT_BOUND) return;
  db.exec('INSERT INTO uuid_merged SELECT uuid, seq FROM uuid_recent ORDER BY uuid; DELETE FROM uuid_recent');
  level.merged += level.recent;
  level.recent = 0;
  if (level.merged <= Math.max(RECENT_BOUND, Math.sqrt(level.keys * RECENT_BOUND))) return;
  db.exec('INSERT INTO u SELECT uuid, seq FROM uuid_merged ORDER BY uuid; DELETE FROM uuid_merged');
  level.keys += level.merged;
  level.merged = 0;
}
const commit = db.transaction((from) => {
  for (let i = from; i < Math.min(rows, from + COMMIT_ROWS); i++) {
    const uuid = randomBytes(16);
    if (claim === undefined) insert.run(uuid, payload);
    else if (claim.run({ uuid, seq: i + 1 }).changes === 1) {
      insert.run(uuid, payload);
      level.recent++;
    }
  }
  if (claim !== undefined) settle();
});
const cpu = process.cpuUsage();
const written = writtenBytes();
const started = Date.now();
try {
  for (let i = 0; i < rows; i += COMMIT_ROWS) commit(i);
  const read = Date.now();
  if (mode === 'sorted') db.exec('INSERT INTO u (uuid, seq) SELECT uuid, seq FROM e ORDER BY uuid');
  // The merge that ends a read.
  if (mode === 'mapped') db.exec('INSERT INTO uuid_merged SELECT uuid, seq FROM uuid_recent ORDER BY uuid; DELETE FROM uuid_recent');
  const used = process.cpuUsage(cpu);
  const end = Date.now();
  console.log(
    JSON.stringify({
      mode,
      rows,
      wallMs: end - started,
      settleMs: end - read,
      cpuS: (used.user + used.system) / 1e6,
      sysS: used.system / 1e6,
      writtenMB: Math.round((writtenBytes() - written) / 1e6),
    }),
  );
} finally {
  db.close();
  for (const f of files) rmSync(f, { force: true });
}
