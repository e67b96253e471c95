/**
 * Rows of files a source replaced as a whole (a Heap Connect table's full resync replaces the
 * table's earlier dumps): the rows no project received are withdrawn, so only the new dump's
 * rows are sent; the rows a project already received are kept and counted, as PostHog cannot
 * delete them.
 */
import type { StagingStore } from './staging-store.js';
import { withdrawQueried } from './withdrawals.js';

export interface ReplacedRows {
  /** Rows withdrawn: staged from the replaced files and sent to no project. */
  withdrawn: number;
  /** Rows kept: staged from the replaced files and received by a project, which keeps them. */
  kept: number;
  /** Per project, how many of the kept rows it received. */
  projects: Array<{ name: string; count: number }>;
}

function readsOf(store: StagingStore, path: string): number[] {
  return store.db.prepare('SELECT r.id FROM source_reads r JOIN sources s ON s.id = r.source_id WHERE s.path = ? ORDER BY r.id').pluck().all(path) as number[];
}

const RECEIVED = 'EXISTS (SELECT 1 FROM deliveries d WHERE d.seq = e.seq)';

/** Withdraws the unsent rows staged from `paths` (files read before under those paths); counts the ones kept. */
export function withdrawReplacedReads(store: StagingStore, paths: readonly string[]): ReplacedRows {
  const result: ReplacedRows = { withdrawn: 0, kept: 0, projects: [] };
  const byProject = new Map<string, number>();
  for (const path of paths) {
    for (const readId of readsOf(store, path)) {
      result.withdrawn += withdrawQueried(store, `SELECT e.seq FROM events e WHERE e.read_id = ${readId} AND NOT ${RECEIVED}`, readId, 'replaced');
      const kept = store.db
        .prepare('SELECT p.name, count(*) AS count FROM events e JOIN deliveries d ON d.seq = e.seq JOIN projects p ON p.id = d.project_id WHERE e.read_id = ? GROUP BY p.name')
        .all(readId) as Array<{ name: string; count: number }>;
      for (const { name, count } of kept) byProject.set(name, (byProject.get(name) ?? 0) + count);
      result.kept += (store.db.prepare(`SELECT count(*) FROM events e WHERE e.read_id = ? AND ${RECEIVED}`).pluck().get(readId) as number) ?? 0;
    }
  }
  result.projects = [...byProject].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([name, count]) => ({ name, count }));
  return result;
}
