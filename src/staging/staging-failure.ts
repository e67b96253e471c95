/**
 * A failure of the staging file's storage (a full disk, a read-only disk, no permission, a
 * missing directory, damaged pages) as one sentence naming the file and what to do, with exit
 * code 7. Every command that reads or writes a staging file gets its failures explained here:
 * SQLite's codes are sorted in src/sqlite/storage-failure.ts, and the disk is looked at to
 * tell a read-only disk from a permission problem.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { MigrateError, StagingError } from '../errors.js';
import { failureCode, storageFailureKind } from '../sqlite/storage-failure.js';
import { migrateCommand } from '../util/migrate-command.js';

export type StagingFailureKind = 'disk-full' | 'read-only-disk' | 'permission' | 'missing-directory' | 'damaged' | 'busy' | 'io' | 'cannot-open';

/** A staging file that cannot be read or written, and why. Crosses worker threads as a StagingError. */
export class StagingFileError extends StagingError {
  constructor(
    readonly kind: StagingFailureKind,
    readonly file: string,
    message: string,
    hints: readonly string[] = [],
  ) {
    super(message, hints);
    this.name = 'StagingError';
  }
}

export interface FailureContext {
  /** What was done when it failed: a write (the default) or a read (status, rejects). */
  reading?: boolean;
  /** For a full disk: what is safe so far, e.g. "1,200 events staged so far". */
  progress?: () => string;
}

function accessCode(path: string, mode: number): string | undefined {
  try {
    accessSync(path, mode);
    return undefined;
  } catch (error) {
    return failureCode(error);
  }
}

/** Looks at the disk to say why a file could not be opened or written. */
function diagnose(file: string, reading: boolean, fallback: StagingFailureKind): StagingFailureKind {
  const dir = dirname(file);
  if (!existsSync(dir)) return 'missing-directory';
  const mode = reading ? constants.R_OK : constants.W_OK;
  const code = accessCode(existsSync(file) ? file : dir, mode) ?? (reading ? undefined : accessCode(dir, constants.W_OK));
  if (code === 'EROFS') return 'read-only-disk';
  if (code === 'EACCES' || code === 'EPERM') return 'permission';
  return fallback;
}

function kindOf(error: unknown, file: string, reading: boolean): StagingFailureKind | undefined {
  const kind = storageFailureKind(error);
  if (kind === 'not-writable') return diagnose(file, reading, 'permission');
  if (kind === 'cannot-open') return diagnose(file, reading, 'cannot-open');
  return kind;
}

function describe(kind: StagingFailureKind, file: string, error: Error, context: FailureContext): [string, string[]] {
  const dir = dirname(file);
  const reading = context.reading === true;
  const place = { staging: file };
  const canStillRead = reading ? '' : ` (\`${migrateCommand('status', place)}\` and \`${migrateCommand('rejects', place)}\` can still read it)`;
  switch (kind) {
    case 'disk-full':
      return [`the disk holding ${file} is full: ${context.progress?.() ?? 'everything committed is kept'}, nothing lost; free space and run the same command again`, []];
    case 'read-only-disk':
      return [`${file} is on a read-only disk: make the disk writable, or copy the file to a writable disk and pass --staging <copy>, then run the same command again${canStillRead}`, []];
    case 'permission':
      return reading
        ? [`no permission to read ${file}: run as a user who can read it`, []]
        : [
            `no permission to write ${file} or the files SQLite keeps beside it (${basename(file)}-wal, ${basename(file)}-shm in ${dir}): run as the user who owns it, or give this user write access to the file and its directory${canStillRead}`,
            [],
          ];
    case 'missing-directory':
      return [`the directory ${dir} of the staging file does not exist: create it, or pass --staging with a file in an existing directory`, []];
    case 'damaged':
      return [
        `the staging file ${file} is damaged (SQLite: ${error.message})`,
        [
          `See what is damaged: ${migrateCommand('status --check', place)}`,
          'To recover, keep this file aside and stage the source files again into a new staging file (export-source, identify-users, identify-groups with --staging <new file>): events get the same uuids, so anything sent again is collapsed by PostHog.',
        ],
      ];
    case 'busy':
      return [
        `${file} is busy: another process kept SQLite's lock on it too long`,
        [`Run the same command again when the other process is done (\`${migrateCommand('status', place)}\` shows a running import).`],
      ];
    case 'io':
    case 'cannot-open':
      return [
        `${kind === 'io' ? 'reading or writing' : 'cannot open'} ${file} failed (${failureCode(error)}: ${error.message})`,
        ['Check the disk (space, permissions, errors), then run the same command again: everything committed is kept.'],
      ];
  }
}

/**
 * The error to throw for `error` met while using the staging file `file`: a storage failure
 * explained, anything else (our own errors included) unchanged.
 */
export function stagingFailure(error: unknown, file: string, context: FailureContext = {}): unknown {
  // A full disk met deep down (a checkpoint) is told again with what the caller knows is safe.
  if (error instanceof StagingFileError && error.kind === 'disk-full' && context.progress !== undefined) {
    return new StagingFileError('disk-full', error.file, describe('disk-full', error.file, error, context)[0]);
  }
  if (error instanceof MigrateError) return error;
  const kind = kindOf(error, file, context.reading === true);
  if (kind === undefined) return error;
  const [message, hints] = describe(kind, file, error as Error, context);
  return new StagingFileError(kind, file, message, hints);
}
