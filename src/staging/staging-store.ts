/**
 * The staging file: a SQLite database holding every event exactly as it will be sent, the
 * sources it came from, the rows rejected and, per project, what the server accepted.
 * Opening for writing takes the staging lock; reading (status, rejects) does not.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { StagingError } from '../errors.js';
import { migrate, openDatabase, schemaVersion, type Database } from '../sqlite/database.js';
import { acquireStagingLock, type StagingLock } from './staging-lock.js';
import { MIGRATIONS, STAGING_APPLICATION_ID } from './staging-schema.js';

export interface OpenStagingOptions {
  /** Take the writer lock in the name of this command (export-source, import, ...). */
  lockFor?: string;
  /** Fail when the file does not exist (status, import). Default false. */
  mustExist?: boolean;
  /** SQLite page cache, in MiB. Default 16. */
  cacheMb?: number;
}

export class StagingStore {
  private constructor(
    readonly path: string,
    /** For the modules of src/staging only; everything else goes through their functions. */
    readonly db: Database,
    private readonly lock: StagingLock | undefined,
  ) {}

  static open(file: string, options: OpenStagingOptions = {}): StagingStore {
    const path = resolve(file);
    if (options.mustExist && !existsSync(path)) {
      throw new StagingError(`no staging file at ${file}`, ['Run `migrate export-source` first, or pass --staging <file>.']);
    }
    const lock = options.lockFor ? acquireStagingLock(path, options.lockFor) : undefined;
    let db: Database | undefined;
    try {
      db = openDatabase(path, { cacheMb: options.cacheMb });
      checkIdentity(db, file);
      migrate(db, MIGRATIONS);
      if (db.pragma('application_id', { simple: true }) !== STAGING_APPLICATION_ID) {
        db.pragma(`application_id = ${STAGING_APPLICATION_ID}`);
        db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('created_at', ?)").run(new Date().toISOString());
      }
      return new StagingStore(path, db, lock);
    } catch (error) {
      db?.close();
      lock?.release();
      if (error instanceof StagingError) throw error;
      throw new StagingError(`${file}: cannot be used as a staging file (${(error as Error).message})`);
    }
  }

  close(): void {
    try {
      if (this.db.open) this.db.close();
    } finally {
      this.lock?.release();
    }
  }

  /** Runs `work` in one write transaction (all or nothing). */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }
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
    throw new StagingError(`${file}: was written by a newer version of migrate (schema ${version}, this one knows ${MIGRATIONS.length})`, [
      'Upgrade migrate to continue this migration.',
    ]);
  }
}
