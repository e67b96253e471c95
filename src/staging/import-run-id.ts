/**
 * The id stamped on every sent event as `$import_run`, kept in the staging file's meta table
 * under `import_run`: made once per staging file, by its first staging run, so every row and
 * every re-send carries the same value (and re-sent content stays identical for PostHog's
 * dedup). Files staged before it existed have none: readers treat it as optional.
 */
import { randomUUID } from 'node:crypto';
import type { StagingStore } from './staging-store.js';

export function readImportRunId(store: StagingStore): string | undefined {
  const row = store.db.prepare("SELECT value FROM meta WHERE key = 'import_run'").get() as { value: string } | undefined;
  return row?.value === undefined || row.value === '' ? undefined : row.value;
}

/** The staging file's import run id, made now if it has none (a staging command, holding the lock). */
export function ensureImportRunId(store: StagingStore): string {
  store.db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('import_run', ?)").run(randomUUID());
  return readImportRunId(store)!;
}
