/**
 * The end of a read of a file that was read before. Rows of its earlier reads that this read
 * did not meet again are gone from the file: it changed (a corrected row is a new row, the old
 * version gone). Those not yet delivered anywhere are withdrawn, so the old version is never
 * sent. When a project already received some, the user chooses: the run is refused and its
 * read undone, unless --replace-changed withdraws them too (the project keeps what it got).
 * A file that only grew has nothing gone.
 */
import { RefusedError } from '../errors.js';
import { count, plural } from '../util/format.js';
import { seenCount } from '../staging/source-reads.js';
import type { StagingStore } from '../staging/staging-store.js';
import { deliveredAmongSelected, selectGoneRows, withdrawSelected, type DeliveredRows } from '../staging/withdrawals.js';

export interface EarlierReads {
  ids: number[];
  /** Rows of theirs still staged, when known. */
  liveRows: number | undefined;
}

function refusal(displayName: string, gone: number, delivered: DeliveredRows): RefusedError {
  const projects = delivered.projects.map((p) => `${p.name} (${count(p.count)})`).join(', ');
  const lines = delivered.first.map((r) => `  ${displayName}:${r.line} uuid ${r.uuid}, delivered to ${r.projects.join(', ')}`);
  if (delivered.count > delivered.first.length) lines.push(`  ... and ${count(delivered.count - delivered.first.length)} more`);
  return new RefusedError(
    `${displayName} changed since it was staged: ${plural(gone, 'row')} staged from it earlier ${gone === 1 ? 'is' : 'are'} no longer in it, ` +
      `and ${count(delivered.count)} of them ${delivered.count === 1 ? 'was' : 'were'} already delivered to ${projects}:\n${lines.join('\n')}\nNothing from this run was kept.`,
    [
      'PostHog keeps what it received: events cannot be deleted there.',
      `Pass --replace-changed to withdraw the rows not yet delivered and stage the new version (${delivered.projects.map((p) => p.name).join(', ')} will have both versions of the delivered rows),`,
      'or stage the new version into a new staging file (--staging other.db).',
    ],
  );
}

/**
 * Withdraws the rows gone from the file; or, when some were delivered and `replace` is false,
 * withdraws nothing and returns the refusal (the caller undoes the read and throws it). Cheap
 * when nothing is gone: the rows met again are counted first.
 */
export function settleGoneRows(store: StagingStore, readId: number, earlier: EarlierReads, replace: boolean, displayName: string): RefusedError | undefined {
  if (earlier.ids.length === 0) return undefined;
  if (earlier.liveRows !== undefined && seenCount(store, readId) >= earlier.liveRows) return undefined;
  const gone = selectGoneRows(store, readId, earlier.ids);
  if (gone === 0) return undefined;
  const delivered = deliveredAmongSelected(store);
  if (delivered.count > 0 && !replace) return refusal(displayName, gone, delivered);
  withdrawSelected(store, readId, 'gone');
  return undefined;
}
