/**
 * One writer per staging file, whatever path or symlink leads to it: the lock is a row inside
 * the file itself (`meta` key `writer_lock`), naming the process that holds it, so it is not
 * tied to the name the file was opened by (SQLite follows symlinks to the file's own name; a
 * file with several hard links is not written at all, see staging-store.ts). It is taken in one
 * SQLite write transaction, so two processes that find the same dead holder cannot both take it
 * over: the second sees the first one's row. A row left by a process that died (same host, its
 * pid gone) is stale and taken over.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { StagingError } from '../errors.js';
import type { Database } from '../sqlite/database.js';

const LOCK_KEY = 'writer_lock';

interface LockInfo {
  pid: number;
  host: string;
  command: string;
  startedAt: string;
  /** Tells this holder's row from a later one's when releasing. */
  token: string;
}

/** Who holds a staging file's lock, and whether that process still runs. */
export interface LockHolder {
  pid: number;
  host: string;
  command: string;
  startedAt: string;
  /** undefined when it runs on another host (it cannot be checked from here). */
  alive: boolean | undefined;
}

export interface StagingLock {
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(db: Database): LockInfo | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(LOCK_KEY) as { value: string } | undefined;
  if (row === undefined) return undefined;
  try {
    return JSON.parse(row.value) as LockInfo;
  } catch {
    return undefined;
  }
}

/** The holder of the lock, if any (a read: status shows whether an import is running). */
export function lockHolder(db: Database): LockHolder | undefined {
  const info = readLock(db);
  if (info === undefined) return undefined;
  return { pid: info.pid, host: info.host, command: info.command, startedAt: info.startedAt, alive: info.host === hostname() ? isAlive(info.pid) : undefined };
}

/** Takes the lock of the staging file open in `db`, or throws StagingError naming the process holding it. */
export function acquireStagingLock(db: Database, file: string, command: string): StagingLock {
  const info: LockInfo = { pid: process.pid, host: hostname(), command, startedAt: new Date().toISOString(), token: randomUUID() };
  const take = db.transaction((): LockHolder | undefined => {
    const holder = lockHolder(db);
    if (holder !== undefined && holder.alive !== false) return holder;
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(LOCK_KEY, JSON.stringify(info));
    return undefined;
  });
  // IMMEDIATE: the write lock is taken before the holder is read, so the check and the take are one step.
  const holder = take.immediate();
  if (holder !== undefined) {
    const where = holder.host === info.host ? '' : ` on ${holder.host}`;
    throw new StagingError(`${file} is in use by process ${holder.pid}${where} (migrate ${holder.command}, started ${holder.startedAt})`, [
      holder.alive === undefined
        ? `If no migrate command runs on ${holder.host} any more, clear its lock: sqlite3 ${file} "DELETE FROM meta WHERE key = '${LOCK_KEY}'"`
        : 'Wait for it to finish, or stop it (Ctrl-C, or kill it: its progress is saved), then run the same command again.',
    ]);
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      try {
        db.prepare("DELETE FROM meta WHERE key = ? AND json_extract(value, '$.token') = ?").run(LOCK_KEY, info.token);
      } catch {
        // The file cannot be written (a full disk): the row names a process about to end, so the next command takes it over.
      }
    },
  };
}
