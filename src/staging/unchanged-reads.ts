/**
 * Sources staged before and unchanged since: the source's latest read is done, with the
 * identity the source has now (see sources/file-identity.ts) and the content options this run
 * would record. An archive (its entries recorded as `<path>!<entry>`) is always read again. Such a source is
 * not read again: reading it would stage nothing and cost its bytes (a bucket's egress).
 */
import { canonicalJson } from '../json/canonical-json.js';
import type { StagingStore } from './staging-store.js';

export interface RunOptions {
  /** The options the run records with each read, and the reader options it was given explicitly (an encoding, a delimiter). */
  recorded: Record<string, unknown>;
  /** Keys the user left at their defaults which inherit an earlier read's value: not compared. */
  inherited: ReadonlySet<string>;
}

interface LatestRow {
  status: string;
  supersededBy: number | null;
  identity: string | null;
  options: string;
}

/** Recorded per file, as the file was read (found in its header, its byte-order mark, or taken from its latest read): compared only when the run gives them. */
const PER_FILE = new Set(['encoding', 'delimiter', 'trim', 'defaultTimestampMs']);

/** Every option the earlier read recorded or this run records has the same value in both (an option absent is none). */
function sameOptions(recordedJson: string, run: RunOptions): boolean {
  const recorded = JSON.parse(recordedJson) as Record<string, unknown>;
  const keys = new Set([...Object.keys(run.recorded), ...Object.keys(recorded).filter((key) => !PER_FILE.has(key))]);
  return [...keys].every((key) => run.inherited.has(key) || canonicalJson(recorded[key] ?? null) === canonicalJson(run.recorded[key] ?? null));
}

/** A test of whether the source at `path` with `identity` was staged as this run would stage it. */
export function unchangedSources(store: StagingStore, run: RunOptions): (path: string, identity: string) => boolean {
  // The latest read of each source at the path or inside it (an archive's entries), failed reads aside.
  const latest = store.db.prepare(
    `SELECT r.status, r.superseded_by AS supersededBy, r.source_identity AS identity, r.options
     FROM sources s JOIN source_reads r ON r.id = (SELECT max(id) FROM source_reads WHERE source_id = s.id AND status <> 'failed')
     WHERE s.path = ? OR substr(s.path, 1, ?) = ?`,
  );
  const archiveEntries = store.db.prepare('SELECT count(*) FROM sources WHERE substr(path, 1, ?) = ?').pluck();
  return (path, identity) => {
    const rows = latest.all(path, path.length + 1, `${path}!`) as LatestRow[];
    // An archive is always read again: which entries it holds is known only by opening it, and
    // an entry whose read failed, or that a stopped run never began, has no done read to find.
    if (rows.length !== 1 || (archiveEntries.get(path.length + 1, `${path}!`) as number) > 0) return false;
    return rows.every((r) => r.status === 'done' && r.supersededBy === null && r.identity === identity && sameOptions(r.options, run));
  };
}
