#!/usr/bin/env node
// What random uuids cost the staging file's unique uuid index, in isolation: rows of a 16-byte
// random key and 300 bytes, with the writer's settings (16 KiB pages, 16 MiB cache, WAL, a commit
// every 4,096 rows), either into a unique index row by row (how events.uuid is kept today) or
// appended with no index and then settled by one sorted pass into a (uuid, seq) table (the design
// docs/performance.md describes). Prints one JSON line: CPU, wall and bytes written.
// Usage: node bench/uuid-index-cost.mjs <unique|sorted> [rows=2000000] [dir=/tmp]
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

const [mode, rowsArg, dir = '/tmp'] = process.argv.slice(2);
if (mode !== 'unique' && mode !== 'sorted') {
  console.error('usage: node bench/uuid-index-cost.mjs <unique|sorted> [rows] [dir]');
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
const insert = db.prepare(`INSERT INTO e (uuid, p) VALUES (?, ?)${mode === 'unique' ? ' ON CONFLICT (uuid) DO NOTHING' : ''}`);
const payload = 'x'.repeat(300);
const commit = db.transaction((from) => {
  for (let i = from; i < Math.min(rows, from + COMMIT_ROWS); i++) insert.run(randomBytes(16), payload);
});
const cpu = process.cpuUsage();
const written = writtenBytes();
const started = Date.now();
try {
  for (let i = 0; i < rows; i += COMMIT_ROWS) commit(i);
  const read = Date.now();
  if (mode === 'sorted') db.exec('INSERT INTO u (uuid, seq) SELECT uuid, seq FROM e ORDER BY uuid');
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
