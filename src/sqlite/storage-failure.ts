/**
 * SQLite's error codes (and the file system's, for the files beside a database) sorted into the
 * few kinds of storage failure a person can act on. The one table of them: the staging store
 * turns each kind into a sentence naming the file and what to do. Pure.
 */

export type StorageFailureKind =
  /** No space left (SQLITE_FULL, ENOSPC, a quota). */
  | 'disk-full'
  /** Writing refused: a read-only file or disk, or no permission (told apart by looking at the disk). */
  | 'not-writable'
  /** The file (or its directory) could not be opened. */
  | 'cannot-open'
  /** Damaged pages or not a database at all. */
  | 'damaged'
  /** Another connection holds the lock past the busy timeout. */
  | 'busy'
  /** Any other input/output error from the disk. */
  | 'io';

const BY_CODE: ReadonlyArray<[RegExp, StorageFailureKind]> = [
  [/^(SQLITE_FULL|ENOSPC|EDQUOT)$/, 'disk-full'],
  [/^(SQLITE_READONLY(_\w+)?|SQLITE_PERM|SQLITE_AUTH|EROFS|EACCES|EPERM)$/, 'not-writable'],
  [/^SQLITE_CANTOPEN(_\w+)?$/, 'cannot-open'],
  [/^(SQLITE_CORRUPT(_\w+)?|SQLITE_NOTADB)$/, 'damaged'],
  [/^(SQLITE_BUSY(_\w+)?|SQLITE_LOCKED(_\w+)?)$/, 'busy'],
  [/^(SQLITE_IOERR(_\w+)?|EIO)$/, 'io'],
];

/** The error's code (`SQLITE_FULL`, `ENOSPC`, ...), if it has one. */
export function failureCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The kind of storage failure `error` is, or undefined when it is not one. */
export function storageFailureKind(error: unknown): StorageFailureKind | undefined {
  const code = failureCode(error);
  if (code === undefined) return undefined;
  // A write that ran out of space can surface as an I/O error of the write itself.
  if (code.startsWith('SQLITE_IOERR') && /disk is full|no space/i.test((error as Error).message ?? '')) return 'disk-full';
  return BY_CODE.find(([pattern]) => pattern.test(code))?.[1];
}

/** Whether `error` came from SQLite itself (not from another file the command reads). */
export function isSqliteError(error: unknown): boolean {
  return failureCode(error)?.startsWith('SQLITE_') === true;
}
