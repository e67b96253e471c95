/** What `copy-config` did (or, with --dry-run, would do) with each object, and the totals per kind. */
import type { CopyKind } from './config-kinds.js';

export type CopyOutcome =
  /** Made in the destination. */
  | 'created'
  /** The source changed since the last copy; the destination object was updated. */
  | 'updated'
  /** Copied before and unchanged since. */
  | 'unchanged'
  /** Changed by hand in the destination since the copy: left alone (unless --overwrite). */
  | 'edited'
  /** Not copied, for the reason given (a reference to something not copied, a self-made flag...). */
  | 'skipped'
  /** The destination's plan does not include this kind (402). */
  | 'refused'
  /** The destination refused the object (the reason is its answer). */
  | 'failed';

export interface CopyItem {
  kind: CopyKind;
  sourceId: number;
  name: string;
  outcome: CopyOutcome;
  destId?: number;
  reason?: string;
  warnings?: string[];
}

export interface CopyReport {
  dryRun: boolean;
  items: CopyItem[];
  /** Problems that concern the whole run (a group type missing in the destination...). */
  notes: string[];
}

export const OUTCOMES: readonly CopyOutcome[] = ['created', 'updated', 'unchanged', 'edited', 'skipped', 'refused', 'failed'];

export function countsByKind(report: CopyReport): Map<CopyKind, Record<CopyOutcome, number>> {
  const counts = new Map<CopyKind, Record<CopyOutcome, number>>();
  for (const item of report.items) {
    const row = counts.get(item.kind) ?? { created: 0, updated: 0, unchanged: 0, edited: 0, skipped: 0, refused: 0, failed: 0 };
    row[item.outcome] += 1;
    counts.set(item.kind, row);
  }
  return counts;
}
