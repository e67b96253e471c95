/** What status prints: the staging file's sources, events, rejects and projects, as text or JSON. */
import type { KindReport, ProjectReport, StagingReport } from '../../../staging/staging-report.js';
import { bytes, count } from '../../../util/format.js';
import { displayPath } from '../../terminal/display-path.js';
import { print, printJson } from '../../terminal/output.js';
import { table } from '../../terminal/table.js';

function range(kind: KindReport): string {
  return kind.count === 0 ? '' : ` (${kind.first} .. ${kind.last})`;
}

function printSources(report: StagingReport): void {
  if (report.sources.length === 0) {
    print('No sources staged yet: run `migrate export-source`.');
    return;
  }
  print('Sources:');
  const rows = report.sources.map((s) => [
    displayPath(s.path),
    s.format,
    s.status,
    s.sizeBytes < 0 ? 'stream' : bytes(s.sizeBytes),
    count(s.rowsRead),
    count(s.staged),
    count(s.alreadyStaged + s.duplicates),
    count(s.rejected),
  ]);
  print(table([['  file', 'format', 'status', 'size', 'rows', 'new', 'known', 'rejected'], ...rows.map(([first, ...rest]) => [`  ${first}`, ...rest] as string[])]));
}

function lastImport(p: ProjectReport): string {
  const run = p.lastImport;
  if (run === null) return '';
  if (run.status === 'done') return run.sample !== null ? `sample of ${count(run.sample)} done` : 'done';
  if (run.status === 'running') return 'running, or killed (`migrate resume`)';
  if (run.status === 'superseded') return 'superseded';
  return `${run.status} (\`migrate resume\`)`;
}

function printProjects(report: StagingReport): void {
  if (report.projects.length === 0) {
    print('Not imported anywhere yet: `migrate import --project <name>`.');
    return;
  }
  print('Projects:');
  const rows = report.projects.map((p) => [`  ${p.name}`, p.role, p.host, count(p.delivered), count(p.pending), count(p.deadLetters), lastImport(p)]);
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

function printStagingReport(report: StagingReport): void {
  print(`Staging file: ${report.staging}`);
  printSources(report);
  print(`Events: ${count(report.events.count)}${range(report.events)}`);
  if (report.persons.count > 0) print(`Person updates ($identify): ${count(report.persons.count)}${range(report.persons)}`);
  if (report.groups.count > 0) print(`Group updates ($groupidentify): ${count(report.groups.count)}${range(report.groups)}`);
  if (report.topEvents.length > 0) {
    print('Top events:');
    print(table(report.topEvents.map((e) => [`  ${e.name}`, count(e.count)])));
  }
  if (report.rejectsByReason.length > 0) {
    print('Rejected rows (see `migrate rejects`):');
    print(table(report.rejectsByReason.map((r) => [`  ${r.reason}`, count(r.count)])));
  }
  printProjects(report);
}

export function presentStatus(report: StagingReport, json: boolean): void {
  if (json) printJson(report);
  else printStagingReport(report);
}
