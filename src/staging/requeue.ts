/**
 * Making delivered events pending again for one project, when PostHog turned out not to hold
 * them (`migrate verify --resend-missing`): their deliveries rows go, the project's counter
 * follows, and each is recorded with the import run that re-sends it; all in one transaction.
 * The next run sends them again with the same uuid and content, so nothing can double.
 */
import type { StagingStore } from './staging-store.js';

/** Re-queues the delivered events among `seqs`; returns how many were delivered and now are pending. */
export function requeueDelivered(store: StagingStore, projectId: number, runId: number, seqs: readonly number[]): number {
  if (seqs.length === 0) return 0;
  const list = JSON.stringify(seqs);
  return store.transaction(() => {
    const at = new Date().toISOString();
    store.db
      .prepare(
        `INSERT OR IGNORE INTO requeued_events (project_id, seq, run_id, created_at)
         SELECT @projectId, d.seq, @runId, @at FROM deliveries d WHERE d.project_id = @projectId AND d.seq IN (SELECT value FROM json_each(@list))`,
      )
      .run({ projectId, runId, at, list });
    const removed = store.db.prepare('DELETE FROM deliveries WHERE project_id = ? AND seq IN (SELECT value FROM json_each(?))').run(projectId, list).changes;
    store.db.prepare('UPDATE projects SET delivered = delivered - ? WHERE id = ?').run(removed, projectId);
    return removed;
  });
}

/** How many events were re-queued for a project, over all runs. */
export function requeuedCount(store: StagingStore, projectId: number): number {
  return store.db.prepare('SELECT count(*) FROM requeued_events WHERE project_id = ?').pluck().get(projectId) as number;
}
