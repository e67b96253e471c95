/** What a staging command prints: a summary per file and in all, or the result as JSON. */
import type { FileSummary } from '../../../stage-sources/stage-file.js';
import type { StageSourcesResult } from '../../../stage-sources/stage-sources.js';
import { count, plural, rate } from '../../../util/format.js';
import { print, printJson } from '../../terminal/output.js';

/** Reject counts by reason, most first: `3 bad_json, 1 missing_event`. */
export function byReason(rejected: Record<string, number>): string {
  return Object.entries(rejected)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${count(n)} ${reason}`)
    .join(', ');
}

function printFile(file: FileSummary): void {
  print(`${file.displayName}: ${plural(file.rowsRead, 'row')} read`);
  print(`  ${count(file.staged)} new, ${count(file.alreadyStaged)} already staged`);
  if (file.duplicates > 0) print(`  ${count(file.duplicates)} identical to an earlier row of this file (staged once)`);
  if (file.skipped > 0) print(`  ${count(file.skipped)} skipped: event mapped to null (by --map, or a source default such as session_start)`);
  if (file.rejected > 0) {
    print(`  ${count(file.rejected)} rejected: ${byReason(file.rejectedByReason)}`);
    for (const reject of file.firstRejects) {
      print(`    ${file.displayName}:${reject.line} ${reject.field ? `${reject.field}: ` : ''}${reject.message}`);
    }
  }
  if (file.recent > 0) {
    print(`  warning: ${plural(file.recent, 'event')} within the last 48 hours; PostHog advises importing only older events`);
  }
}

function printSummary(result: StageSourcesResult): void {
  for (const file of result.files) printFile(file);
  const t = result.totals;
  if (result.files.length > 1) {
    print(`All files: ${plural(t.rowsRead, 'row')} read, ${count(t.staged)} new, ${count(t.alreadyStaged)} already staged, ${count(t.rejected)} rejected`);
  }
  print(`Staged into ${result.staging} in ${(result.elapsedMs / 1000).toFixed(1)} s (${count(rate(t.rowsRead, result.elapsedMs))} rows/s).`);
  if (t.rejected > 0) print('Every rejected row, with its file, line and reason: `migrate rejects`.');
}

export function presentStaging(result: StageSourcesResult, json: boolean): void {
  if (json) printJson(result);
  else printSummary(result);
}
