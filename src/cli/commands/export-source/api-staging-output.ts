/** What export-source prints after a source API run: the window, what was fetched and staged, the ranges that need a look, or the result as JSON. */
import type { RangeResult } from '../../../stage-sources/api-range-run.js';
import type { StageApiResult } from '../../../stage-sources/stage-api.js';
import { count, plural, took } from '../../../util/format.js';
import { migrateCommand } from '../../../util/migrate-command.js';
import { displayPath } from '../../terminal/display-path.js';
import { print, printJson } from '../../terminal/output.js';
import { passesLines } from './passes-output.js';
import { byReason, skippedReasons } from './staging-output.js';

function label(range: RangeResult): string {
  return range.start === range.end ? range.start : `${range.start}-${range.end}`;
}

/** A fetched range worth a line of its own: rejects, a failure, a split. */
function printRange(range: RangeResult): void {
  if (range.status === 'failed') print(`  ${label(range)}: failed: ${range.error ?? ''}`);
  if (range.status === 'split') print(`  ${label(range)}: too large for one answer, asked for in halves`);
  if (range.rejected === 0) return;
  print(`  ${label(range)}: ${plural(range.rowsRead, 'row')}, ${count(range.staged)} new, ${count(range.rejected)} rejected: ${byReason(range.rejectedByReason)}`);
  for (const reject of range.firstRejects) print(`    ${reject.file}:${reject.line} ${reject.field ? `${reject.field}: ` : ''}${reject.message}`);
}

function printSummary(result: StageApiResult): void {
  const unit = result.unit;
  const capped = result.window.cappedFrom === null ? '' : ` (--end ${result.window.cappedFrom} capped at the last ${unit} settled a day ago)`;
  print(`${result.vendor} (${result.source}), ${unit}s ${result.window.start} to ${result.window.end}${capped}`);
  for (const name of result.recovered) print(`  ${name}: interrupted in an earlier run; undone and fetched again`);
  if (result.alreadyDone.ranges > 0) {
    print(`  skipped ${plural(result.alreadyDone.ranges, 'range')} already done (${plural(result.alreadyDone.units, unit)}): not fetched again`);
  }
  const fetched = result.ranges.filter((r) => r.status === 'done' || r.status === 'empty');
  const empty = fetched.filter((r) => r.status === 'empty').length;
  if (result.ranges.length === 0) print('  nothing to fetch');
  else print(`  fetched ${plural(fetched.length, 'range')} (${count(empty)} without data) in ${plural(result.requests, 'request')}`);
  for (const range of result.ranges) printRange(range);
  const t = result.totals;
  const added = t.added > 0 ? ` (+${plural(t.added, 'event')} from the transform)` : '';
  print(`Rows: ${count(t.rowsRead)} read${added}, ${count(t.staged)} new, ${count(t.alreadyStaged + t.duplicates)} already staged, ${count(t.skipped)} skipped, ${count(t.rejected)} rejected`);
  if (t.skipped > 0) print(`  ${count(t.skipped)} skipped: ${skippedReasons(t.skipped, t.skippedByReason)}`);
  const l = result.ledger;
  const place = { staging: result.staging };
  print(`The window's ranges: ${count(l.done)} done, ${count(l.empty)} without data, ${count(l.failed)} failed, ${count(l.pending)} pending (\`${migrateCommand('status', place)}\`).`);
  for (const part of result.people ?? []) {
    const what = part.part === 'persons' ? 'Persons' : `Groups (${part.part.slice('groups:'.length)})`;
    if (part.status === 'failed') print(`${what}: failed: ${part.error ?? ''}`);
    else print(`${what}: ${count(part.rowsRead)} updates read, ${count(part.staged)} new, ${count(part.alreadyStaged)} already staged, ${count(part.rejected)} rejected`);
  }
  for (const line of passesLines(result.passes)) print(line);
  print(`Staged into ${displayPath(result.staging)} ${took(result.elapsedMs, t.rowsRead, 'rows')}.`);
  if (t.rejected > 0) print(`Every rejected row, with its range, line and reason: \`${migrateCommand('rejects', place)}\`.`);
  if (t.recent > 0) print(`warning: ${plural(t.recent, 'event')} within the last 48 hours; PostHog advises importing only older events`);
}

export function presentApiStaging(result: StageApiResult, json: boolean): void {
  if (json) printJson(result);
  else printSummary(result);
}
