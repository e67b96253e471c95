/** What status prints: the staging file's sources, events, rejects and projects, as text or JSON. */
import type { StagingCheck } from '../../../staging/staging-check.js';
import type { ReadCounts } from '../../../staging/source-reads.js';
import type { KindReport, ProjectReport, SourceReport, StagingReport } from '../../../staging/staging-report.js';
import { bytes, count, plural } from '../../../util/format.js';
import { displayPath } from '../../terminal/display-path.js';
import { print, printJson } from '../../terminal/output.js';
import { table } from '../../terminal/table.js';
import { passesStatusLines } from './passes-status.js';

function range(kind: KindReport): string {
  return kind.count === 0 ? '' : ` (${kind.first} .. ${kind.last})`;
}

function printSources(report: StagingReport): void {
  if (report.sources.length === 0) {
    print('No sources staged yet: run `migrate export-source`.');
    return;
  }
  print('Sources:');
  const counts = (c: ReadCounts & { withdrawn: number }): string[] => [c.rowsRead, c.staged, c.alreadyStaged, c.duplicates, c.skipped, c.rejected, c.withdrawn].map(count);
  const rows = report.sources.map((s) => [`  ${displayPath(s.path)}`, s.format, state(s), bytes(s.sizeBytes), ...counts(s)]);
  if (report.sources.length > 1) rows.push(['  all files', '', '', '', ...counts(report.sourceTotals)]);
  print(table([['  file', 'format', 'status', 'size', 'read', 'new', 'already staged', 'identical', 'skipped', 'rejected', 'withdrawn'], ...rows]));
  const partial = report.sources.filter((s) => s.status === 'partial');
  if (partial.length > 0) print(`  ${partial.length === 1 ? 'A partial read is' : 'Partial reads are'} resumed by running the same staging command again on ${partial.length === 1 ? 'its file' : 'their files'}.`);
}

function state(s: SourceReport): string {
  return s.status === 'partial' && s.progressLine !== null ? `partial, to line ${count(s.progressLine)}` : s.status;
}

function printWithdrawn(report: StagingReport): void {
  if (report.withdrawn.count === 0) return;
  const delivered = report.withdrawn.delivered.map((d) => `${count(d.count)} delivered earlier to ${d.project}`).join(', ');
  print(`Withdrawn: ${count(report.withdrawn.count)} (rows gone from a changed file, or replaced; never sent)${delivered ? `; of them ${delivered}, which ${report.withdrawn.delivered.length === 1 ? 'keeps them' : 'keep them'}` : ''}`);
}

/** A run recorded as running: running when a live process holds the file's lock, else killed. */
function runningOrKilled(writer: StagingReport['writer']): string {
  if (writer !== null && writer.alive === true) return `running (process ${writer.pid}, migrate ${writer.command})`;
  if (writer !== null && writer.alive === undefined) return `running on ${writer.host} (process ${writer.pid}), or killed`;
  return 'killed (`migrate resume`)';
}

function lastImport(p: ProjectReport, writer: StagingReport['writer']): string {
  const run = p.lastImport;
  if (run === null) return '';
  if (run.status === 'done') return run.sample !== null ? `sample of ${count(run.sample)} done` : 'done';
  if (run.status === 'running') return runningOrKilled(writer);
  if (run.status === 'superseded') return 'superseded';
  return `${run.status} (\`migrate resume\`)`;
}

function printProjects(report: StagingReport): void {
  if (report.projects.length === 0) {
    print('Not imported anywhere yet: `migrate import --project <name>`.');
    return;
  }
  print('Projects:');
  const rows = report.projects.map((p) => [`  ${p.name}`, p.role, p.host, count(p.delivered), count(p.pending), count(p.deadLetters), lastImport(p, report.writer)]);
  print(table([['  project', 'role', 'host', 'delivered', 'pending', 'dead letters', 'last import'], ...rows]));
  for (const p of report.projects) {
    if (p.deliveredPersons + p.deliveredGroups > 0 || report.persons.count + report.groups.count > 0) {
      const events = p.delivered - p.deliveredPersons - p.deliveredGroups;
      print(`  ${p.name}: delivered ${count(events)} of ${count(report.events.count)} events, ${count(p.deliveredPersons)} of ${count(report.persons.count)} person updates, ${count(p.deliveredGroups)} of ${count(report.groups.count)} group updates`);
    }
    if (p.testFirstOverrideAt !== null) print(`  ${p.name}: imported without a test import first (--skip-test-first, ${p.testFirstOverrideAt})`);
    if (p.lastImport?.stopReason && p.lastImport.status !== 'done') print(`  ${p.name}: last import ${p.lastImport.status}: ${p.lastImport.stopReason}`);
  }
  if (report.deadLetters.length > 0) {
    print('Dead letters (refused by the server; not sent again):');
    for (const d of report.deadLetters) print(`  ${d.project} ${d.uuid} ${d.event} ${d.timestamp}: HTTP ${d.status} ${d.message}`);
  }
}

function preflightLine(p: StagingReport['preflights'][number]): string {
  if (p.outcome === 'skipped') return `  ${p.project}: preflight skipped (--skip-preflight, ${p.createdAt})`;
  const found = [p.problems > 0 ? plural(p.problems, 'problem') : '', p.warnings > 0 ? plural(p.warnings, 'warning') : ''].filter(Boolean).join(', ');
  return `  ${p.project}: preflight ${p.outcome} ${p.createdAt}${found === '' ? '' : ` (${found})`}${p.outcome === 'failed' ? ': `migrate doctor --project ' + p.project + '`' : ''}`;
}

function printStagingReport(report: StagingReport): void {
  print(`Staging file: ${report.staging}`);
  if (report.note !== null) print(`Note: ${report.note}.`);
  printSources(report);
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
    print('Rejected rows (see `migrate rejects`):');
    print(table(report.rejectsByReason.map((r) => [`  ${r.reason}`, count(r.count)])));
  }
  printProjects(report);
  if (report.preflights.length > 0) {
    print('Preflight (migrate doctor, run by import before a project\'s first chunk):');
    for (const p of report.preflights) print(preflightLine(p));
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
