#!/usr/bin/env node
// What one uuid merge holds in memory, in isolation: KEYS random 16-byte keys in a table like
// uuid_keys, MERGED more in one like uuid_merged, then the merge (INSERT OR ROLLBACK ... ORDER BY
// uuid; DELETE) in a transaction, either at its top level or inside two savepoints, with
// temp_store MEMORY or FILE, and the writer's other settings (WAL, 16 KiB pages, 16 MiB cache).
// Prints one JSON line: the resident set before and after the merge, and its time.
// Usage: node bench/savepoint-merge-memory.mjs <top|savepoint> <MEMORY|FILE> [keys=2000000] [merged=500000] [dir=/tmp]
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

const [where, temp, keysArg, mergedArg, dir = '/tmp'] = process.argv.slice(2);
if (!['top', 'savepoint'].includes(where) || !['MEMORY', 'FILE'].includes(temp)) {
  console.error('usage: node bench/savepoint-merge-memory.mjs <top|savepoint> <MEMORY|FILE> [keys] [merged] [dir]');
  process.exit(2);
}
const keys = Number(keysArg ?? 2_000_000);
const merged = Number(mergedArg ?? 500_000);
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
const file = join(dir, `savepoint-merge-${process.pid}.db`);

const db = new Database(file);
db.pragma('page_size = 16384');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma(`temp_store = ${temp}`);
db.pragma('cache_size = -16384');
db.exec('CREATE TABLE k (uuid BLOB PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID; CREATE TABLE m (uuid BLOB PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;');
const fill = (table, rows) => {
  const insert = db.prepare(`INSERT INTO ${table} VALUES (?, ?)`);
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(randomBytes(16), i);
  })();
};
fill('k', keys);
fill('m', merged);
db.pragma('wal_checkpoint(TRUNCATE)');
const before = rssMb();
const started = Date.now();
db.exec('BEGIN IMMEDIATE');
if (where === 'savepoint') db.exec('SAVEPOINT outer_one; SAVEPOINT inner_one');
db.exec('INSERT OR ROLLBACK INTO k (uuid, seq) SELECT uuid, seq FROM m ORDER BY uuid; DELETE FROM m;');
const after = rssMb();
if (where === 'savepoint') db.exec('RELEASE inner_one; RELEASE outer_one');
db.exec('COMMIT');
console.log(JSON.stringify({ where, temp, keys, merged, rssBeforeMb: Math.round(before), rssAfterMergeMb: Math.round(after), mergeMs: Date.now() - started }));
db.close();
for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
