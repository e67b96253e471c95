/** A staging run's totals, and the failures of a run that staged nothing or found a batch export incomplete. */
import { InputError } from '../errors.js';
import { addNotes } from '../events/source-notes.js';
import { SKIPPED_BY_MAP } from '../events/row-filters.js';
import { addByReason, COUNT_KEYS } from '../staging/source-reads.js';
import { count } from '../util/format.js';
import { migrateCommand } from '../util/migrate-command.js';
import type { stageExportPersons } from './export-persons.js';
import type { FileSummary } from './stage-file-options.js';
import type { StageSourcesResult } from './stage-sources-types.js';

export function addTotals(totals: StageSourcesResult['totals'], file: FileSummary): void {
  for (const key of COUNT_KEYS) totals[key] += file[key];
  for (const w of file.withdrawn) totals.withdrawn += w.count;
  addByReason(totals.rejectedByReason, file.rejectedByReason);
  addByReason(totals.skippedByReason, file.skippedByReason);
  addNotes(totals.notes, file.notes);
}

/** The persons of a batch export's persons files: their read among the files, and what the files gave. */
export function addPersons(result: StageSourcesResult, done: Awaited<ReturnType<typeof stageExportPersons>>): void {
  for (const summary of done.files) {
    result.files.push({ ...summary, notices: [] });
    addTotals(result.totals, summary);
  }
  result.persons = done.persons;
}

/**
 * Every row read left out by the run's own filters or transform: more likely a misspelt name or
 * a wrong year than what was meant. (Rows mapped to null are the mapping's business.)
 */
function everyRowLeftOut(result: StageSourcesResult): InputError | undefined {
  const t = result.totals;
  const chosen = Object.entries(t.skippedByReason).filter(([reason]) => reason !== SKIPPED_BY_MAP);
  if (t.rowsRead === 0 || t.skipped !== t.rowsRead + t.added || chosen.length === 0) return undefined;
  const reasons = chosen
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${count(n)} ${reason}`)
    .join(', ');
  return new InputError(`nothing was staged: every row read was skipped (${reasons})`, [
    "--only-events and --skip-events match an event's name as the source wrote it or as the mapping renamed it; --since and --until its time in UTC.",
  ]);
}

/**
 * The failure of a run that achieved nothing: rows were rejected and none is staged (new, already
 * staged or identical), or every row was left out by a filter or the transform. Rejected or
 * skipped rows next to staged ones are not a failure.
 */
export function nothingStagedError(result: StageSourcesResult): InputError | undefined {
  const t = result.totals;
  if (t.staged + t.alreadyStaged + t.duplicates > 0) return undefined;
  if (t.rejected === 0) return everyRowLeftOut(result);
  const top = Object.entries(t.rejectedByReason)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([reason, n]) => `${count(n)} ${reason}`)
    .join(', ');
  return new InputError(`nothing was staged: ${t.rejected === t.rowsRead ? 'every row read was rejected' : 'no row was staged and some were rejected'} (${top})`, [
    `Every rejected row, with its file, line and reason: \`${migrateCommand('rejects', { staging: result.staging })}\`.`,
  ]);
}

/**
 * The failure of a run whose batch-export manifests list files that are not there, or that
 * found files in a folder it cannot read: what was there is staged.
 */
export function incompleteRunError(result: StageSourcesResult): InputError | undefined {
  const missing = result.incomplete ?? [];
  const unreadable = result.unreadable ?? [];
  if (missing.length === 0 && unreadable.length > 0) {
    const more = unreadable.length > 1 ? ` (and ${count(unreadable.length - 1)} more)` : '';
    return new InputError(`a file found in the folders named cannot be read: ${unreadable[0]}${more}; the other files were staged`, [
      'Make it readable as the message says (or move it out of the folder) and run the same command again: what is staged is recognised.',
    ]);
  }
  if (missing.length === 0) return undefined;
  const more = missing.length > 1 ? ` (and ${count(missing.length - 1)} more)` : '';
  return new InputError(`a batch export run is incomplete: ${missing[0]}${more}; the files that are there were staged`, [
    'The export may still be writing, or the download missed a file: fetch it and run the same command again (what is staged is recognised).',
  ]);
}
