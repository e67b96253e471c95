/**
 * What a staging command prints: a summary per file and in all, or the result as JSON. One
 * vocabulary everywhere (here, in status, in the docs): every row read is new, already staged,
 * identical (to an earlier row of the same file), skipped or rejected, and these add up to the
 * rows read; withdrawn rows are rows of an earlier read, no longer sent.
 */
import { SKIPPED_BY_MAP } from '../../../events/row-filters.js';
import type { StagedFile, StageSourcesResult } from '../../../stage-sources/stage-sources.js';
import type { ReadCounts } from '../../../staging/source-reads.js';
import type { WithdrawnByRead } from '../../../staging/withdrawals.js';
import { count, plural, took } from '../../../util/format.js';
import { migrateCommand } from '../../../util/migrate-command.js';
import { displayPath } from '../../terminal/display-path.js';
import { print, printJson } from '../../terminal/output.js';
import { noteLines, passesLines } from './passes-output.js';

/** Reject counts by reason, most first: `3 bad_json, 1 missing_event`. */
export function byReason(rejected: Record<string, number>): string {
  return Object.entries(rejected)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${count(n)} ${reason}`)
    .join(', ');
}

/**
 * `3,000 rows read: 2,990 new, 0 already staged, 1 identical, 2 skipped, 7 rejected`: the terms
 * add up to the first (with the events a transform added: `10 rows read (+2 events from the transform): ...`).
 */
export function countsLine(counts: ReadCounts): string {
  const added = counts.added > 0 ? ` (+${plural(counts.added, 'event')} from the transform)` : '';
  return `${plural(counts.rowsRead, 'row')} read${added}: ${count(counts.staged)} new, ${count(counts.alreadyStaged)} already staged, ${count(counts.duplicates)} identical, ${count(counts.skipped)} skipped, ${count(counts.rejected)} rejected`;
}

function skipLabel(reason: string): string {
  if (reason === SKIPPED_BY_MAP) return 'mapped to null (by --map, or a source default such as session_start)';
  if (reason === '--only-events') return 'not in --only-events';
  if (reason === '--skip-events') return 'by --skip-events';
  if (reason === '--since') return 'before --since';
  if (reason === '--until') return 'at or after --until';
  return reason.startsWith('transform ') ? `dropped by ${reason}` : `by ${reason}`;
}

/**
 * Skipped rows by reason, most first: `10 by --skip-events, 2 dropped by transform strip-test.mjs`.
 * Rows skipped by a read from before reasons were kept were mapped to null (the only reason then).
 */
export function skippedReasons(skipped: number, skippedBy: Readonly<Record<string, number>>): string {
  const reasons = { ...skippedBy };
  const unknown = skipped - Object.values(reasons).reduce((a, b) => a + b, 0);
  if (unknown > 0) reasons[SKIPPED_BY_MAP] = (reasons[SKIPPED_BY_MAP] ?? 0) + unknown;
  return Object.entries(reasons)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${count(n)} ${skipLabel(reason)}`)
    .join(', ');
}

const WITHDRAWN_WHY: Record<WithdrawnByRead['reason'], string> = {
  gone: 'no longer in the file (or now skipped)',
  replaced: 'replaced by their new version (--replace-changed)',
  undone: 'their read was undone',
};

function printWithdrawn(withdrawn: readonly WithdrawnByRead[]): void {
  for (const w of withdrawn) {
    print(`  ${count(w.count)} withdrawn: ${WITHDRAWN_WHY[w.reason]}; never sent from now on`);
    for (const d of w.delivered) {
      print(
        `    ${count(d.count)} of them ${d.count === 1 ? 'was' : 'were'} already delivered to ${d.project}, which keeps ${d.count === 1 ? 'it' : 'them'} (PostHog cannot delete events): it will have both versions`,
      );
    }
  }
}

function printFile(file: StagedFile): void {
  print(`${file.displayName}: ${countsLine(file)}`);
  for (const notice of file.notices) print(`  note: ${notice}`);
  if (file.resumedAtLine !== undefined) print(`  resumed at line ${count(file.resumedAtLine)} (an interrupted run had staged the lines before it)`);
  if (file.restarted !== undefined) print(`  staged from the start: ${file.restarted}`);
  if (file.duplicates > 0) print(`  ${count(file.duplicates)} identical to an earlier row of this file (staged once)`);
  if (file.skipped > 0) print(`  ${count(file.skipped)} skipped: ${skippedReasons(file.skipped, file.skippedByReason)}`);
  if (file.rejected > 0) {
    print(`  ${count(file.rejected)} rejected: ${byReason(file.rejectedByReason)}`);
    for (const reject of file.firstRejects) {
      print(`    ${file.displayName}:${reject.line} ${reject.field ? `${reject.field}: ` : ''}${reject.message}`);
    }
  }
  printWithdrawn(file.withdrawn);
  if (file.recent > 0) {
    print(`  warning: ${plural(file.recent, 'event')} within the last 48 hours; PostHog advises importing only older events`);
  }
}

/** The persons files of a PostHog batch export, and what became of their persons. */
function printPersons(persons: NonNullable<StageSourcesResult['persons']>): void {
  print(
    `Persons (${plural(persons.files.length, 'file')} of the persons model, ${plural(persons.rowsRead, 'row')}): ${count(persons.persons)} persons with ${count(persons.distinctIds)} distinct ids`,
  );
  if (persons.deleted > 0) print(`  ${count(persons.deleted)} skipped: deleted in the source (their ${plural(persons.deletedDistinctIds, 'distinct id')} left out)`);
  if (persons.rejected.length > 0) print(`  ${count(persons.rejected.length)} rows left out, e.g. ${persons.rejected[0]!.file}:${persons.rejected[0]!.line} ${persons.rejected[0]!.message}`);
}

/** Sources staged before and unchanged since: not read (neither their bytes nor a request spent on them). */
function printUnchanged(unchanged: readonly string[]): void {
  if (unchanged.length === 0) return;
  const which = unchanged.length === 1 ? unchanged[0]! : `e.g. ${unchanged[0]}`;
  print(`${plural(unchanged.length, 'source')} unchanged since staged, not read again (${which}); --reread reads them`);
}

function printSummary(result: StageSourcesResult): void {
  printUnchanged(result.unchanged);
  for (const file of result.files) printFile(file);
  if (result.persons !== undefined) printPersons(result.persons);
  const t = result.totals;
  if (result.files.length > 1) {
    print(`All files: ${countsLine(t)}${t.withdrawn > 0 ? `; ${count(t.withdrawn)} withdrawn` : ''}`);
    if (t.skipped > 0) print(`  ${count(t.skipped)} skipped: ${skippedReasons(t.skipped, t.skippedByReason)}`);
  }
  // Rows an interrupted run had read are in the counts, not in this run's rate.
  const readNow = t.rowsRead - result.files.reduce((n, f) => n + (f.rowsReadBeforeResume ?? 0), 0);
  for (const line of [...noteLines(t.notes), ...passesLines(result.passes)]) print(line);
  print(`Staged into ${displayPath(result.staging)} ${took(result.elapsedMs, readNow, 'rows')}.`);
  if (t.rejected > 0) print(`Every rejected row, with its file, line and reason: \`${migrateCommand('rejects', { staging: result.staging })}\`.`);
}

export function presentStaging(result: StageSourcesResult, json: boolean): void {
  if (json) printJson(result);
  else printSummary(result);
}
