/**
 * The id stamped on every sent event as `$import_run`, kept in the staging file's meta table
 * under `import_run`. Files staged before it existed have none: readers treat it as optional.
 */
import type { StagingStore } from './staging-store.js';

export function readImportRunId(store: StagingStore): string | undefined {
  const row = store.db.prepare("SELECT value FROM meta WHERE key = 'import_run'").get() as { value: string } | undefined;
  return row?.value === undefined || row.value === '' ? undefined : row.value;
}
