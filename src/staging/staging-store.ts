/**
 * The staging file: a SQLite database holding every event exactly as it will be sent, the
 * sources it came from, the rows rejected and, per project, what the server accepted.
 * Opening for writing takes the staging lock (a row inside the file, see staging-lock.ts);
 * opening read-only (status, rejects, verify) takes no lock and writes nothing, so a file on a
 * read-only disk or owned by another user can still be inspected. Every storage failure comes
 * out as a StagingFileError that names the file and what to do (staging-failure.ts).
 */
import { existsSync, openSync, readSync, closeSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MigrateError, StagingError } from '../errors.js';
import { failureCode, storageFailureKind } from '../sqlite/storage-failure.js';
import { copyInMemory, migrate, openDatabase, schemaVersion, withTempFilesOnDisk, type Database } from '../sqlite/database.js';
import { bytes, count } from '../util/format.js';
import { migrateCommand } from '../util/migrate-command.js';
import { type PropertyBlockCache, registerPropertyFunctions } from './property-blocks.js';
import { shellWord } from '../util/shell-word.js';
import { stagingFailure } from './staging-failure.js';
import { acquireStagingLock, lockHolder, type LockHolder, type StagingLock } from './staging-lock.js';
import { MIGRATIONS, STAGING_APPLICATION_ID } from './staging-schema.js';
import { TopLevelWork } from './top-level-work.js';

export interface OpenStagingOptions {
  /** Take the writer lock in the name of this command (export-source, import, ...). */
  lockFor?: string;
  /** Fail when the file does not exist (status, import). Default false. */
  mustExist?: boolean;
  /**
   * Read only: no lock, no migration, no write of any kind (status, rejects, verify). The file
   * must exist; its schema may be older than this version's. Default false.
   */
  readOnly?: boolean;
  /** SQLite page cache, in MiB. Default 16. */
  cacheMb?: number;
  /** Most property blocks the connection keeps unpacked (see PropertyBlockCache). Default: as many as 16 MB hold. */
  blockCacheBlocks?: number;
}

const SQLITE_HEADER = 'SQLite format 3\0';

export class StagingStore {
  private constructor(
    readonly path: string,
    /** For the modules of src/staging only; everything else goes through their functions. */
    readonly db: Database,
    private readonly lock: StagingLock | undefined,
    readonly readOnly: boolean,
    /** Said when the file could only be read as it is on disk (see openForReading). */
    readonly readNote: string | undefined,
    blockCacheBlocks: number | undefined,
  ) {
    this.propertyBlocks = registerPropertyFunctions(db, blockCacheBlocks);
  }

  /** The connection's unpacked property blocks, shared by its SQL functions and the writer. */
  readonly propertyBlocks: PropertyBlockCache;

  static open(file: string, options: OpenStagingOptions = {}): StagingStore {
    const path = resolve(file);
    const readOnly = options.readOnly === true;
    if ((options.mustExist || readOnly) && !existsSync(path)) {
      throw new StagingError(`no staging file at ${file}`, ['Run `migrate export-source` first, or pass --staging <file>.']);
    }
    const names = existsSync(path) ? statSync(path).nlink : 1;
    if (names > 1 && !readOnly) throw hardLinked(file, names);
    let db: Database | undefined;
    let lock: StagingLock | undefined;
    try {
      let note: string | undefined;
      if (readOnly) ({ db, note } = openForReading(path));
      else db = openDatabase(path, { cacheMb: options.cacheMb });
      if (names > 1) note = `${file} has ${names} names (hard links): what a command wrote through another name may not show here until it ends`;
      checkIdentity(db, file);
      if (!readOnly) prepareForWriting(db);
      else if (schemaVersion(db) < MIGRATIONS.length) ({ db, note } = upgradedCopy(db, path, file));
      lock = options.lockFor ? acquireStagingLock(db, file, options.lockFor) : undefined;
      return new StagingStore(path, db, lock, readOnly, note, options.blockCacheBlocks);
    } catch (error) {
      lock?.release();
      db?.close();
      throw openFailure(error, path, file, readOnly);
    }
  }

  close(): void {
    try {
      this.lock?.release();
    } finally {
      if (this.db.open) this.db.close();
    }
  }

  /**
   * Gives back the memory the connection's caches hold (SQLite's pages, the unpacked property
   * blocks) once a pass over many rows is over: SQLite never shrinks its page cache by itself,
   * and what the pass read would stay resident for the rest of a long command.
   */
  releaseCaches(): void {
    this.propertyBlocks.clear();
    this.db.pragma('shrink_memory');
  }

  /** Runs `work` (passes over whole tables, after the files are read) with temporary files on disk (see withTempFilesOnDisk). */
  bulk<T>(work: () => T): T {
    return withTempFilesOnDisk(this.db, work);
  }

  /** Savepoints opened through this store, and the work kept for when none is open (see top-level-work.ts). */
  readonly topLevel = new TopLevelWork();

  /**
   * Runs `work` in one write transaction (all or nothing); a storage failure comes out explained.
   * Inside another transaction it is a savepoint of it.
   */
  transaction<T>(work: () => T): T {
    const transaction = this.db.transaction(work);
    try {
      return this.db.inTransaction ? this.topLevel.inSavepoint(() => transaction()) : transaction();
    } catch (error) {
      throw this.failure(error);
    }
  }

  /**
   * The error to throw for `error` met while using this file: a storage failure explained
   * (for a full disk, with `progress`: what is safe so far), anything else unchanged.
   */
  failure(error: unknown, progress?: () => string): unknown {
    return stagingFailure(error, this.path, { reading: this.readOnly, progress: progress ?? (() => `${count(this.stagedSoFar())} events staged so far`) });
  }

  /** Who holds the writer lock, if anyone (status tells a running import from a killed one). */
  lockHolder(): LockHolder | undefined {
    return lockHolder(this.db);
  }

  private stagedSoFar(): number {
    return (this.db.prepare('SELECT coalesce(sum(count), 0) AS n FROM event_names').get() as { n: number }).n;
  }
}

/**
 * SQLite keeps a file's write-ahead log and lock beside the name it was opened by (following
 * symlinks), so commands writing through two hard links of one file would not see each other's
 * writes or lock, and could damage it. A staging file with more than one name is not written.
 */
function hardLinked(file: string, names: number): StagingError {
  return new StagingError(
    `${file} has ${names} names (hard links): SQLite keeps its write-ahead log and lock beside each name, so commands writing through different names would not see each other and could damage the file`,
    [`Keep one name: remove the other links (find / -xdev -samefile ${shellWord(file)}), or use a copy (cp) rather than a link. \`${migrateCommand('status', { staging: file })}\` can still read it.`],
  );
}

/** Files made by an older version are read through an upgraded copy in memory up to this size, in bytes. */
export const MAX_UPGRADED_COPY_BYTES = 1024 ** 3;

/**
 * A file made by an older migrate, opened only to read (status, rejects): the readers know this
 * version's schema, and the file must not be written, so they read an upgraded copy in memory.
 * A file too large for that is refused in words, with the command that upgrades it.
 */
function upgradedCopy(db: Database, path: string, file: string): { db: Database; note: string } {
  const version = schemaVersion(db);
  const sizeBytes = statSync(path).size + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
  if (sizeBytes > MAX_UPGRADED_COPY_BYTES) {
    db.close();
    throw new StagingError(
      `${file}: was written by an older version of migrate (schema ${version}; this one reads ${MIGRATIONS.length}) and is too large (${bytes(sizeBytes)}) to read through an upgraded copy in memory`,
      [`Upgrade it in place first (it keeps everything; nothing is sent): ${migrateCommand('import --project <name> --dry-run', { staging: file })}, or any command that stages or imports.`],
    );
  }
  const copy = copyInMemory(db);
  db.close();
  migrate(copy, MIGRATIONS);
  return {
    db: copy,
    note: `${file} was written by an older version of migrate (schema ${version}): read through an upgraded copy; the file itself is upgraded by the next command that stages or imports`,
  };
}

/** Brings a file opened for writing to this version's schema and marks it as a staging file. */
function prepareForWriting(db: Database): void {
  migrate(db, MIGRATIONS);
  if (db.pragma('application_id', { simple: true }) !== STAGING_APPLICATION_ID) {
    db.pragma(`application_id = ${STAGING_APPLICATION_ID}`);
    db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('created_at', ?)").run(new Date().toISOString());
  }
}

/**
 * Opens for reading without writing anything. SQLite needs its shared-memory file (-shm) beside
 * a WAL database even to read it; where that file cannot be made (a read-only disk, another
 * user's directory) the file is read as it is on disk (`immutable`), which is exact unless a
 * write-ahead log holds changes not yet written back: then a note says so.
 */
function openForReading(path: string): { db: Database; note?: string } {
  let db: Database | undefined;
  try {
    db = openDatabase(path, { readonly: true });
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return { db };
  } catch (error) {
    db?.close();
    const code = failureCode(error) ?? '';
    if (storageFailureKind(error) !== 'cannot-open' && !code.startsWith('SQLITE_READONLY')) throw error;
  }
  const immutable = openDatabase(path, { immutable: true });
  const walBytes = existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0;
  const note = walBytes > 0 ? `${path} was read as it is on disk: its write-ahead log (${bytes(walBytes)}) holds recent changes that cannot be read from here` : undefined;
  return { db: immutable, note };
}

function startsAsSqlite(path: string): boolean {
  try {
    const fd = openSync(path, 'r');
    try {
      const head = Buffer.alloc(SQLITE_HEADER.length);
      readSync(fd, head, 0, head.length, 0);
      return head.toString('latin1') === SQLITE_HEADER;
    } finally {
      closeSync(fd);
    }
  } catch {
    return true; // unreadable: let the storage failure say why
  }
}

/** What to throw when opening failed. */
function openFailure(error: unknown, path: string, file: string, readOnly: boolean): unknown {
  if (error instanceof MigrateError) return error;
  if (failureCode(error) === 'SQLITE_NOTADB' && !startsAsSqlite(path)) {
    return new StagingError(`${file}: cannot be used as a staging file: it is not a SQLite database`, ['Pass --staging with the file export-source wrote (default ./migration.db).']);
  }
  if (!existsSync(dirname(path)) || storageFailureKind(error) !== undefined) {
    return stagingFailure(Object.assign(error as Error, { code: failureCode(error) ?? 'SQLITE_CANTOPEN' }), path, { reading: readOnly, progress: () => 'nothing written yet' });
  }
  return new StagingError(`${file}: cannot be used as a staging file (${(error as Error).message})`);
}

/** Refuses SQLite files that are not ours and staging files from a newer version. */
function checkIdentity(db: Database, file: string): void {
  const appId = db.pragma('application_id', { simple: true }) as number;
  const version = schemaVersion(db);
  const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number };
  if (appId !== STAGING_APPLICATION_ID && (version !== 0 || tables.n > 0)) {
    throw new StagingError(`${file}: is a SQLite database but not a migrate staging file`);
  }
  if (version > MIGRATIONS.length) {
    throw new StagingError(`${file}: was written by a newer version of migrate (schema ${version}, this one knows ${MIGRATIONS.length})`, ['Upgrade migrate to continue this migration.']);
  }
}
