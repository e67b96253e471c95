/**
 * `migrate status --check`: SQLite's integrity check of a staging file, table by table (with
 * progress: on a big file it reads every page), read-only. `status` alone reads counters and
 * would call a file with damaged pages healthy; this finds the damage and names it.
 */
import { integrityProblems } from '../sqlite/database.js';
import { storageFailureKind } from '../sqlite/storage-failure.js';
import type { Reporter } from '../reporter.js';
import { StagingFileError } from './staging-failure.js';
import { StagingStore } from './staging-store.js';

/** Problems listed per table, at most. */
const PROBLEMS_SHOWN = 20;

export interface TableCheck {
  table: string;
  /** SQLite's own words for each problem found; empty when the table and its indexes are sound. */
  problems: string[];
}

export interface StagingCheck {
  staging: string;
  healthy: boolean;
  tables: TableCheck[];
  /** A problem that kept the check from reading the file's list of tables, if any. */
  fileProblem?: string;
}

function damageMessage(error: unknown): string | undefined {
  if (error instanceof StagingFileError && error.kind === 'damaged') return error.message;
  return storageFailureKind(error) === 'damaged' ? (error as Error).message : undefined;
}

/** Checks every table (and its indexes) of the staging file at `path`. */
export function checkStagingFile(path: string, reporter: Reporter): StagingCheck {
  let store: StagingStore;
  try {
    store = StagingStore.open(path, { readOnly: true });
  } catch (error) {
    const damage = damageMessage(error);
    if (damage === undefined) throw error;
    return { staging: path, healthy: false, tables: [], fileProblem: damage };
  }
  try {
    let tables: string[];
    try {
      tables = (store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
    } catch (error) {
      const damage = damageMessage(error);
      if (damage === undefined) throw store.failure(error);
      return { staging: store.path, healthy: false, tables: [], fileProblem: `the list of tables cannot be read: ${damage}` };
    }
    const checked = tables.map((table, i) => {
      reporter.progress(`checking ${table} (${i + 1}/${tables.length})`);
      try {
        return { table, problems: integrityProblems(store.db, table, PROBLEMS_SHOWN) };
      } catch (error) {
        const damage = damageMessage(error);
        if (damage === undefined) throw store.failure(error);
        return { table, problems: [damage] };
      }
    });
    return { staging: store.path, healthy: checked.every((t) => t.problems.length === 0), tables: checked };
  } finally {
    store.close();
  }
}

/** The error `status --check` ends with when the file is damaged (exit 7). */
export function damagedFileError(check: StagingCheck): StagingFileError {
  const damaged = check.tables.filter((t) => t.problems.length > 0).map((t) => t.table);
  const where = check.fileProblem ?? `damaged pages in ${damaged.join(', ')}`;
  return new StagingFileError('damaged', check.staging, `the staging file ${check.staging} is damaged: ${where}`, [
    'To recover, keep this file aside and stage the source files again into a new staging file (export-source, identify-users, identify-groups with --staging <new file>): events get the same uuids, so anything sent again is collapsed by PostHog.',
  ]);
}
