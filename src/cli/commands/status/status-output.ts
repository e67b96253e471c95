/** What status prints: the staging file's sources, events, rejects and projects, as text or JSON. */
import { paceSummaryText } from '../../../import/pace-text.js';
import type { StagingCheck } from '../../../staging/staging-check.js';
import type { ReadCounts } from '../../../staging/source-reads.js';
import type { KindReport, ProjectReport, SourceReport, StagingReport } from '../../../staging/staging-report.js';
import { bytes, count, plural } from '../../../util/format.js';
import { migrateCommand, type CommandPlace } from '../../../util/migrate-command.js';
import { shellWord } from '../../../util/shell-word.js';
import { displayPath } from '../../terminal/display-path.js';
import { print, printJson } from '../../terminal/output.js';
import { skippedReasons } from '../export-source/staging-output.js';
import { passesStatusLines } from './passes-status.js';
import { fitColumn, table } from '../../terminal/table.js';
import { printRules } from './rules-output.js';

/** Text tables of status stay within this many columns: long paths are cut in the middle (--json keeps them whole). */
const MAX_TABLE_WIDTH = 120;

function range(kind: KindReport): string {
  return kind.count === 0 ? '' : ` (${kind.first} .. ${kind.last})`;
}

function printBucketPrefixes(report: StagingReport): void {
  if (report.bucketPrefixes.length === 0) return;
  print('Bucket objects by prefix:');
  const rows = report.bucketPrefixes.map((p) => [`  ${p.prefix}`, count(p.objects), bytes(p.sizeBytes), count(p.done), count(p.partial), count(p.pending)]);
  print(table(fitColumn([['  prefix', 'objects', 'size', 'done', 'partial', 'not read'], ...rows], 0, MAX_TABLE_WIDTH)));
}

function printSources(report: StagingReport): void {
  if (report.sources.length === 0) {
    print(`No sources staged yet: run \`${migrateCommand('export-source', { staging: report.staging })}\`.`);
    return;
  }
  // Source API ranges are shown by their ledger (printRanges): a read per day would flood this table.
  const files = report.sources.filter((s) => !/^[a-z]+-api:/.test(s.path));
  const apiReads = report.sources.length - files.length;
  if (files.length === 0) {
    print(`Sources: ${plural(apiReads, 'range read')} from source APIs (below)`);
    return;
  }
  print(`Sources:${apiReads > 0 ? ` (and ${plural(apiReads, 'range read')} from source APIs, below)` : ''}`);
  const counts = (c: ReadCounts & { withdrawn: number }): string[] => [c.rowsRead, c.staged, c.alreadyStaged, c.duplicates, c.skipped, c.rejected, c.withdrawn].map(count);
  const rows = files.map((s) => [`  ${displayPath(s.path)}`, s.format, state(s), s.sizeBytes < 0 ? 'stream' : bytes(s.sizeBytes), ...counts(s)]);
  if (report.sources.length > 1) rows.push([`  all ${apiReads > 0 ? 'reads' : 'files'}`, '', '', '', ...counts(report.sourceTotals)]);
  print(table(fitColumn([['  file', 'format', 'status', 'size', 'read', 'new', 'already staged', 'identical', 'skipped', 'rejected', 'withdrawn'], ...rows], 0, MAX_TABLE_WIDTH)));
  const t = report.sourceTotals;
  if (report.sources.length > 1 && files.some((s) => s.status === 'failed')) print('  failed reads are left out of the total: nothing of them is staged');
  if (t.skipped > 0) print(`  skipped: ${skippedReasons(t.skipped, t.skippedBy)}`);
  if (t.added > 0) print(`  ${plural(t.added, 'event')} more than rows read: made by a transform (one row, several events)`);
  const partial = files.filter((s) => s.status === 'partial');
  if (partial.length > 0)
    print(`  ${partial.length === 1 ? 'A partial read is' : 'Partial reads are'} resumed by running the same staging command again on ${partial.length === 1 ? 'its file' : 'their files'}.`);
}

function state(s: SourceReport): string {
  return s.status === 'partial' && s.progressLine !== null ? `partial, to line ${count(s.progressLine)}` : s.status;
}

function printWithdrawn(report: StagingReport): void {
  if (report.withdrawn.count === 0) return;
  const delivered = report.withdrawn.delivered.map((d) => `${count(d.count)} delivered earlier to ${d.project}`).join(', ');
  print(
    `Withdrawn: ${count(report.withdrawn.count)} (rows gone from a changed file, or replaced; never sent)${delivered ? `; of them ${delivered}, which ${report.withdrawn.delivered.length === 1 ? 'keeps them' : 'keep them'}` : ''}`,
  );
}

/** A run recorded as running: running when a live process holds the file's lock, else killed. */
function runningOrKilled(writer: StagingReport['writer']): string {
  if (writer !== null && writer.alive === true) return `running (process ${writer.pid}, migrate ${writer.command})`;
  if (writer !== null && writer.alive === undefined) return `running on ${writer.host} (process ${writer.pid}), or killed`;
  return 'killed';
}

function lastImport(p: ProjectReport, writer: StagingReport['writer']): string {
  const run = p.lastImport;
  if (run === null) return '';
  if (run.status === 'done') return run.sample !== null ? `sample of ${count(run.sample)} done` : 'done';
  if (run.status === 'running') return runningOrKilled(writer);
  if (run.status === 'superseded') return 'superseded';
  return run.status;
}

/** Whether `resume` continues the project's last import: it ended unfinished, or was killed. */
function resumable(p: ProjectReport, writer: StagingReport['writer']): boolean {
  const run = p.lastImport;
  if (run === null || run.status === 'done' || run.status === 'superseded') return false;
  return run.status !== 'running' || !(writer !== null && writer.alive !== false);
}

function printProjects(report: StagingReport, place: CommandPlace): void {
  if (report.projects.length === 0) {
    print(`Not imported anywhere yet: \`${migrateCommand('import --project <name>', place)}\`.`);
    return;
  }
  print('Projects:');
  const rows = report.projects.map((p) => [`  ${p.name}`, p.role, p.host, count(p.delivered), count(p.pending), count(p.deadLetters), lastImport(p, report.writer)]);
  print(table(fitColumn([['  project', 'role', 'host', 'delivered', 'pending', 'dead letters', 'last import'], ...rows], 2, MAX_TABLE_WIDTH)));
  for (const p of report.projects) {
    if (resumable(p, report.writer)) print(`  ${p.name}: continue with \`${migrateCommand(`resume --project ${shellWord(p.name)}`, place)}\``);
  }
  for (const p of report.projects) {
    if (p.deliveredPersons + p.deliveredGroups > 0 || report.persons.count + report.groups.count > 0) {
      const events = p.delivered - p.deliveredPersons - p.deliveredGroups - p.deliveredReassertions;
      const reassertions = report.rules.reassertions.staged > 0 ? `, ${count(p.deliveredReassertions)} of ${plural(report.rules.reassertions.staged, 're-assertion')}` : '';
      print(
        `  ${p.name}: delivered ${count(events)} of ${plural(report.events.count, 'event')}, ${count(p.deliveredPersons)} of ${plural(report.persons.count, 'person update')}, ${count(p.deliveredGroups)} of ${plural(report.groups.count, 'group update')}${reassertions}`,
      );
    }
    if (p.testFirstOverrideAt !== null) print(`  ${p.name}: imported without a test import first (--skip-test-first, ${p.testFirstOverrideAt})`);
    if (p.lastImport?.stopReason && p.lastImport.status !== 'done') print(`  ${p.name}: last import ${p.lastImport.status}: ${p.lastImport.stopReason}`);
    if (p.lastImport?.pace) print(`  ${p.name}: last import's ${paceSummaryText(p.lastImport.pace)}`);
  }
  if (report.deadLetters.length > 0) {
    print('Dead letters (refused by the server; not sent again):');
    // Messages recorded by earlier versions may start with the status already.
    for (const d of report.deadLetters) print(`  ${d.project} ${d.uuid} ${d.event} ${d.timestamp}: HTTP ${d.status}: ${d.message.replace(/^HTTP \d+:? /, '')}`);
  }
}

function preflightLine(p: StagingReport['preflights'][number], place: CommandPlace): string {
  if (p.outcome === 'skipped') return `  ${p.project}: preflight skipped (--skip-preflight, ${p.createdAt})`;
  const found = [p.problems > 0 ? plural(p.problems, 'problem') : '', p.warnings > 0 ? plural(p.warnings, 'warning') : ''].filter(Boolean).join(', ');
  return `  ${p.project}: preflight ${p.outcome} ${p.createdAt}${found === '' ? '' : ` (${found})`}${p.outcome === 'failed' ? `: \`${migrateCommand(`doctor --project ${shellWord(p.project)}`, place)}\`` : ''}`;
}

function printRanges(report: StagingReport): void {
  for (const source of report.ranges) {
    const c = source.counts;
    const waiting = c.pending + c.fetching;
    print(`Ranges of ${source.source}: ${count(c.done)} done, ${count(c.empty)} without data, ${count(c.failed)} failed, ${count(waiting)} pending`);
    for (const span of source.spans) {
      const bounds = span.start === span.end ? span.start : `${span.start} .. ${span.end}`;
      const rows = span.status === 'done' ? `, ${plural(span.rowsRead, 'row')}` : '';
      print(`  ${bounds}: ${span.status === 'empty' ? 'without data' : span.status} (${plural(span.ranges, 'range')}${rows})`);
    }
    for (const failed of source.failed)
      print(`  failed ${failed.start === failed.end ? failed.start : `${failed.start}-${failed.end}`} after ${plural(failed.attempts, 'request')}: ${failed.error ?? ''}`);
  }
  if (report.ranges.some((source) => source.counts.failed + source.counts.pending > 0)) {
    print('Ranges not done are fetched by running the same `migrate export-source --from ...-api` again.');
  }
}

function printStagingReport(report: StagingReport): void {
  const place = { staging: report.staging };
  print(`Staging file: ${displayPath(report.staging)}`);
  if (report.note !== null) print(`Note: ${report.note}.`);
  printSources(report);
  printBucketPrefixes(report);
  printRanges(report);
  print(`Events: ${count(report.events.count)}${range(report.events)}`);
  printWithdrawn(report);
  if (report.persons.count > 0) print(`Person updates ($identify): ${count(report.persons.count)}${range(report.persons)}`);
  if (report.groups.count > 0) print(`Group updates ($groupidentify): ${count(report.groups.count)}${range(report.groups)}`);
  for (const line of passesStatusLines(report.passes)) print(line);
  if (report.topEvents.length > 0) {
    print('Top events:');
    print(table(report.topEvents.map((e) => [`  ${e.name}`, count(e.count)])));
  }
  if (report.rejectsByReason.length > 0) {
    print(`Rejected rows (see \`${migrateCommand('rejects', place)}\`):`);
    print(table(report.rejectsByReason.map((r) => [`  ${r.reason}`, count(r.count)])));
  }
  if (report.sources.length > 0) printRules(report.rules);
  printProjects(report, place);
  if (report.preflights.length > 0) {
    print("Preflight (migrate doctor, run by import before a project's first chunk):");
    for (const p of report.preflights) print(preflightLine(p, place));
  }
}

export function presentStatus(report: StagingReport, json: boolean): void {
  if (json) printJson(report);
  else printStagingReport(report);
}

export function presentCheck(check: StagingCheck, json: boolean): void {
  if (json) {
    printJson(check);
    return;
  }
  print(`Staging file: ${check.staging}`);
  if (check.fileProblem !== undefined) print(`  damaged: ${check.fileProblem}`);
  for (const t of check.tables) {
    if (t.problems.length === 0) continue;
    print(`  ${t.table}: damaged`);
    for (const problem of t.problems) print(`    ${problem}`);
  }
  if (check.healthy) print(`  ${check.tables.length} tables and their indexes checked: no damage found.`);
}
