/** The figures of `status` that the verify report shows beside the days: what was staged and rejected, and the project's delivery. */
import { deadLettersByReason, type DeadLetterReason } from '../staging/day-counts.js';
import { findProjectRecord } from '../staging/delivery-store.js';
import { requeuedCount } from '../staging/requeue.js';
import { stagingReport, type KindReport, type ProjectReport } from '../staging/staging-report.js';
import type { StagingStore } from '../staging/staging-store.js';

export interface StatusFigures {
  sources: number;
  events: KindReport;
  persons: KindReport;
  groups: KindReport;
  rejected: number;
  rejectsByReason: Array<{ reason: string; count: number }>;
  project: ProjectReport | null;
  deadLettersByReason: DeadLetterReason[];
  /** Events re-queued by `verify --resend-missing`, all runs. */
  requeued: number;
}

export function statusFigures(store: StagingStore, projectName: string): StatusFigures {
  const report = stagingReport(store, 0);
  const record = findProjectRecord(store, projectName);
  return {
    sources: report.sources.length,
    events: report.events,
    persons: report.persons,
    groups: report.groups,
    rejected: report.rejectsByReason.reduce((sum, r) => sum + r.count, 0),
    rejectsByReason: report.rejectsByReason,
    project: report.projects.find((p) => p.name === projectName) ?? null,
    deadLettersByReason: deadLettersByReason(store, record?.id),
    requeued: record === undefined ? 0 : requeuedCount(store, record.id),
  };
}
