/**
 * The one module that imports better-sqlite3. The staging store and the sandbox's store open
 * their files through here, so the driver and its pragmas live in one place.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3Module from 'better-sqlite3';

// URI file names (for `immutable=1`: reading a staging file on a read-only disk) are off in
// the driver unless this is set when it loads. Only names starting with `file:` are read as
// URIs, and the stores open absolute paths, so nothing else changes.
process.env.SQLITE_USE_URI ??= '1';
const BetterSqlite3 = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3Module;

export type Database = BetterSqlite3Module.Database;
export type Statement<P extends unknown[] = unknown[], R = unknown> = BetterSqlite3Module.Statement<P, R>;

export interface OpenDatabaseOptions {
  /** Open without write access; the file must exist. Default false. */
  readonly?: boolean;
  /**
   * Read the file as it is on disk, without SQLite's shared-memory file or its lock: for a file
   * nobody can write (a read-only disk). Changes still in its write-ahead log are not seen.
   * Implies `readonly`. Default false.
   */
  immutable?: boolean;
  /** Fail when the file does not exist instead of creating it. Default false. */
  mustExist?: boolean;
  /** How long a statement waits for another connection's write lock, in ms. Default 5000. */
  busyTimeoutMs?: number;
  /** Page cache size, in MiB. Default 16. */
  cacheMb?: number;
}

/** `path` as a SQLite URI with `query`: the characters a URI gives a meaning to are escaped. */
function fileUri(path: string, query: string): string {
  return `file:${path.replace(/[%?#]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}?${query}`;
}

/** Opens a SQLite file in WAL mode with the pragmas every store of ours wants. */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Database {
  const readonly = options.readonly === true || options.immutable === true;
  const db = new BetterSqlite3(options.immutable ? fileUri(path, 'immutable=1') : path, {
    readonly,
    fileMustExist: options.mustExist ?? readonly,
    timeout: options.busyTimeoutMs ?? 5000,
  });
  // The first statement reads the file (and, in WAL mode, its -shm): it may fail, and the
  // connection must not outlive the failure (in a long-lived process it would hold the file).
  try {
    if (!readonly) {
      // Only takes effect when the file is created: larger pages mean fewer page splits and less
      // per-page overhead for rows of a few hundred bytes (measured: about 15% faster staging).
      db.pragma('page_size = 16384');
      db.pragma('journal_mode = WAL');
      // NORMAL is durable across process crashes in WAL mode; only a power cut can lose the
      // last commits, and a lost checkpoint only means a chunk is sent again (dedup collapses it).
      db.pragma('synchronous = NORMAL');
      // Savepoint journals in memory: the staging writer opens a savepoint per group of rows,
      // and on disk each one cost a temporary-file write (measured: a third of staging's system time).
      db.pragma('temp_store = MEMORY');
    }
    db.pragma('foreign_keys = ON');
    db.pragma(`cache_size = -${Math.round((options.cacheMb ?? 16) * 1024)}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * A writable copy of `db` in memory (the file is not touched): for reading a file made by an
 * older version through this version's schema without upgrading the file itself.
 */
export function copyInMemory(db: Database): Database {
  const image = db.serialize();
  // Bytes 18 and 19 of the header say WAL mode (2), which a database in memory cannot open: the
  // copy is marked as a rollback-journal database (1), its pages unchanged.
  image[18] = 1;
  image[19] = 1;
  const copy = new BetterSqlite3(image);
  copy.pragma('foreign_keys = ON');
  return copy;
}

/** Reads the schema version kept in `PRAGMA user_version`. */
export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** A migration: SQL to run, or a step that decides what to run from the file's content. */
export type Migration = string | ((db: Database) => void);

/**
 * Applies every migration above the file's version, each in its own transaction. The version
 * is read again under the write lock, so two processes opening a new file at once do not both
 * apply the same migration.
 */
export function migrate(db: Database, migrations: readonly Migration[]): void {
  if (schemaVersion(db) >= migrations.length) return;
  for (;;) {
    const applied = db
      .transaction(() => {
        const version = schemaVersion(db);
        if (version >= migrations.length) return false;
        const migration = migrations[version]!;
        if (typeof migration === 'string') db.exec(migration);
        else migration(db);
        db.pragma(`user_version = ${version + 1}`);
        return true;
      })
      .immediate();
    if (!applied) return;
  }
}

/** The `PRAGMA` check of a file's structure, table by table (see staging-check.ts). */
export function integrityProblems(db: Database, table: string, maxProblems: number): string[] {
  const rows = db.prepare(`PRAGMA integrity_check(${JSON.stringify(table)})`).all() as Array<{ integrity_check: string }>;
  const problems = rows.map((r) => r.integrity_check).filter((text) => text !== 'ok');
  return problems.slice(0, maxProblems);
}

/**
 * Runs `work` with SQLite's temporary files (sorts, statement journals) on disk rather than in
 * memory, then puts them back. A statement over millions of rows keeps a journal of every page
 * it changed, and a sort spills what its memory cannot hold: in memory, both grew with the
 * staging file (the identity links' pass reached 400 MB at five million events).
 */
export function withTempFilesOnDisk<T>(db: Database, work: () => T): T {
  const temp = db.pragma('temp_store', { simple: true }) as number;
  db.pragma('temp_store = FILE');
  try {
    return work();
  } finally {
    db.pragma(`temp_store = ${temp}`);
  }
}
