/**
 * What verify prints: the days (short ones first), the summary line, the wait and the re-send,
 * as text or JSON (whether the run failed is verify/verify-failure.ts's to say).
 */
import { shellWord } from '../../../import/import-rules.js';
import { count, duration, plural } from '../../../util/format.js';
import { migrateCommand, type CommandPlace } from '../../../util/migrate-command.js';
import type { VerifyResult } from '../../../verify/verify-project.js';
import { summaryLine } from '../../../verify/verify-wording.js';
import { displayPath } from '../../terminal/display-path.js';
import { print, printJson } from '../../terminal/output.js';
import { table } from '../../terminal/table.js';

function printRows(r: VerifyResult): void {
  const header = ['  day', ...(r.byEvent ? ['event'] : []), 'staged', 'delivered', 'dead letters', 'landed', 'missing'];
  const rows = r.rows.map((row) => [
    `  ${row.day}`,
    ...(r.byEvent ? [row.event ?? ''] : []),
    count(row.staged),
    count(row.delivered),
    count(row.deadLetters),
    count(row.landed),
    row.missing > 0 ? count(row.missing) : '',
  ]);
  print(table(alignNumbers([header, ...rows], header.length - 5)));
}

/** Right-aligns the columns from `first` on, header included (numbers read best that way). */
function alignNumbers(rows: string[][], first: number): string[][] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i >= first ? cell.padStart(widths[i]!) : cell)));
}

function method(r: VerifyResult): string {
  return `landed = uuids of the events this staging file delivered to ${r.project} that PostHog holds, each once (${plural(r.queries, 'query', 'queries')})`;
}

function printWait(r: VerifyResult): void {
  const w = r.wait;
  if (w.ended === 'settled') print(`Waited ${duration(w.waitedMs)} for ingestion: ${plural(w.readings, 'reading')}, the last two a minute apart agree.`);
  if (w.ended === 'time-up') print(`Waited ${duration(w.waitedMs)} for ingestion (${plural(w.readings, 'reading')}); the count was still changing when the time was up.`);
  if (w.ended === 'complete' && w.readings > 1) print(`Waited ${duration(w.waitedMs)} for ingestion (${plural(w.readings, 'reading')}).`);
}

function printResend(r: VerifyResult, place: CommandPlace): void {
  const s = r.resend;
  if (s === null) return;
  if (s.requeued === 0) {
    print('Re-send: PostHog holds every delivered uuid of the short days now; nothing was re-queued.');
    return;
  }
  print(
    `Re-queued ${plural(s.requeued, 'event')} on ${plural(s.days.length, 'day')} and re-sent them with the same uuids and content (import run ${s.runId}): ${count(s.run?.delivered ?? 0)} accepted.`,
  );
  print(`Check they landed in a few minutes: ${migrateCommand(`verify --project ${shellWord(r.project)} --wait 10m`, place)}`);
}

function printText(r: VerifyResult, html: string | undefined, place: CommandPlace): void {
  print(`Project ${r.project} (${r.apiHost}, project id ${r.projectId}), staging file ${displayPath(r.staging)}`);
  print(`  ${method(r)}`);
  if (r.rows.length > 0) printRows(r);
  print(summaryLine(r.summary));
  if (r.summary.totals.pending > 0) {
    const resume = migrateCommand(`resume --project ${shellWord(r.project)}`, place);
    print(`  ${plural(r.summary.totals.pending, 'staged event')} not delivered yet (${resume}, or ${migrateCommand(`import --project ${shellWord(r.project)}`, place)}).`);
  }
  printWait(r);
  printResend(r, place);
  if (html !== undefined) print(`Report: ${html}`);
}

/** `config`: the --config given, named in the commands suggested. */
export function presentVerify(r: VerifyResult, json: boolean, html: string | undefined, config?: string): void {
  const place = { staging: r.staging, config };
  if (json) printJson({ ...r, report: html ?? null });
  else printText(r, html, place);
}
