/** The text summary printed after staging files. */
import { count, plural, rate } from '../cli/format.js';
import { print } from '../cli/output.js';
import type { FileSummary } from './stage-file.js';
import type { StageFilesResult } from './stage-files.js';

function byReason(rejected: Record<string, number>): string {
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

export function printExportSummary(result: StageFilesResult): void {
  for (const file of result.files) printFile(file);
  const t = result.totals;
  if (result.files.length > 1) {
    print(`All files: ${plural(t.rowsRead, 'row')} read, ${count(t.staged)} new, ${count(t.alreadyStaged)} already staged, ${count(t.rejected)} rejected`);
  }
  print(`Staged into ${result.staging} in ${(result.elapsedMs / 1000).toFixed(1)} s (${count(rate(t.rowsRead, result.elapsedMs))} rows/s).`);
  if (t.rejected > 0) print('Every rejected row, with its file, line and reason: `migrate rejects`.');
}
