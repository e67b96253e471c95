/**
 * Sources staged before and unchanged since: the source's latest read is done, by the same
 * command and format (`--from`) as this run, with the identity the source has now (see
 * sources/file-identity.ts) and the content options this run would record. Such a source is
 * not read again: reading it would stage nothing and cost its bytes (a bucket's egress). One
 * read by another command or format is not taken for unchanged: its rows would be other rows,
 * and the run's plan refuses or reads it (content-options.ts). Nor is one whose read rejected
 * rows as future_timestamp that this run may stage (future-rejects.ts). An archive (its entries recorded
 * as `<path>!<entry>`) is always read again.
 */
import { canonicalJson } from '../json/canonical-json.js';
import { futureRejectsDue } from './future-rejects.js';
import { RECORDED_FORMAT_KEY } from './source-reads.js';
import type { StagingStore } from './staging-store.js';

export interface RunOptions {
  /** The command staging (export-source, identify-users, identify-groups). */
  command: string;
  /** The options the run records with each read (its format among them, see recorded-options.ts), and the reader options it was given explicitly (an encoding, a delimiter). */
  recorded: Record<string, unknown>;
  /** Keys the user left at their defaults which inherit an earlier read's value: not compared. */
  inherited: ReadonlySet<string>;
  /** The run's "now": a read whose rows rejected as future_timestamp it may stage is not unchanged (future-rejects.ts). */
  nowMs?: number;
}

interface LatestRow {
  id: number;
  status: string;
  command: string;
  /** The source's format as its latest read (failed reads too) left it: for reads that did not record theirs. */
  sourceFormat: string;
  supersededBy: number | null;
  identity: string | null;
  options: string;
}

/** Recorded per file, as the file was read (found in its header, its byte-order mark, or taken from its latest read): compared only when the run gives them. */
const PER_FILE = new Set(['encoding', 'delimiter', 'trim', 'defaultTimestampMs']);

/** The read was by this run's command and format, and every option it recorded or this run records has the same value in both (an option absent is none). */
function sameRead(row: LatestRow, run: RunOptions): boolean {
  const recorded = JSON.parse(row.options) as Record<string, unknown>;
  if (row.command !== run.command) return false;
  // A read by a migrate that did not record its format: the source's, as its latest read left it.
  if (!Object.hasOwn(recorded, RECORDED_FORMAT_KEY)) recorded[RECORDED_FORMAT_KEY] = row.sourceFormat;
  const keys = new Set([...Object.keys(run.recorded), ...Object.keys(recorded).filter((key) => !PER_FILE.has(key))]);
  return [...keys].every((key) => run.inherited.has(key) || canonicalJson(recorded[key] ?? null) === canonicalJson(run.recorded[key] ?? null));
}

/** A test of whether the source at `path` with `identity` was staged as this run would stage it. */
export function unchangedSources(store: StagingStore, run: RunOptions): (path: string, identity: string) => boolean {
  // The latest read of each source at the path or inside it (an archive's entries), failed reads aside.
  const latest = store.db.prepare(
    `SELECT r.id, r.status, r.command, s.format AS sourceFormat, r.superseded_by AS supersededBy, r.source_identity AS identity, r.options
     FROM sources s JOIN source_reads r ON r.id = (SELECT max(id) FROM source_reads WHERE source_id = s.id AND status <> 'failed')
     WHERE s.path = ? OR substr(s.path, 1, ?) = ?`,
  );
  const futureDue = run.nowMs === undefined ? () => false : futureRejectsDue(store, run.nowMs);
  const archiveEntries = store.db.prepare('SELECT count(*) FROM sources WHERE substr(path, 1, ?) = ?').pluck();
  return (path, identity) => {
    const rows = latest.all(path, path.length + 1, `${path}!`) as LatestRow[];
    // An archive is always read again: which entries it holds is known only by opening it, and
    // an entry whose read failed, or that a stopped run never began, has no done read to find.
    if (rows.length !== 1 || (archiveEntries.get(path.length + 1, `${path}!`) as number) > 0) return false;
    return rows.every((r) => r.status === 'done' && r.supersededBy === null && r.identity === identity && sameRead(r, run) && !futureDue(r.id));
  };
}
