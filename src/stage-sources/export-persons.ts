/**
 * export-source --from posthog, the persons model of PostHog's batch exports: files whose
 * columns are the persons model's (told by their schema, or their first record) are not events.
 * Their rows, from every such file of the run, are folded into one state (vendors/posthog-persons.ts),
 * together with the persons of earlier runs (saved in the staging file), written as a users
 * file in the spool folder and staged as `--from posthog-api` stages the persons it reads: as
 * identify-users stages a users file, as one read that always holds every person.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import type { RowProblem } from '../events/reject-reasons.js';
import { EventKind } from '../events/staged-event.js';
import { parseJson } from '../json/read-json.js';
import type { Reporter } from '../reporter.js';
import { PERSON_ROLES } from '../source-apis/posthog-people-queries.js';
import { findFormat } from '../sources/formats.js';
import { LineSplitter, type OverlongLine, type TextLine } from '../sources/line-splitter.js';
import { parseObjectLine } from '../sources/json-lines.js';
import { HEAD_TEXT_CHARS } from '../sources/open-input.js';
import type { SourceInput } from '../sources/source-input.js';
import { isPersonsModel, PersonsState, readPersonRow, type PersonsTotals } from '../sources/vendors/posthog-persons.js';
import { loadExportPersons, saveExportPersons } from '../staging/export-person-rows.js';
import { latestRead } from '../staging/source-reads.js';
import { count, plural } from '../util/format.js';
import type { FileSummary } from './stage-file-options.js';
import { spoolDirOf, spoolFile } from './spool.js';
import { stageRange, type RangeStaging } from './stage-range.js';

/** What the persons files of a run gave. */
export interface ExportPersons extends PersonsTotals {
  /** The persons files, as named. */
  files: string[];
  rowsRead: number;
  /** Rows that could not be read, each with its file, line and reason. */
  rejected: Array<{ file: string; line: number; reason: string; field: string; message: string }>;
}

/** Whether a source's head text holds its whole first line (it is cut at HEAD_TEXT_CHARS). */
function isComplete(head: string): boolean {
  return /[\r\n]\s*$/.test(head) || head.length < HEAD_TEXT_CHARS;
}

/** The first non-blank line of a text, read only as far as it goes. */
async function firstLine(text: AsyncIterable<string>): Promise<string | undefined> {
  const splitter = new LineSplitter();
  const lines: Array<TextLine | OverlongLine> = [];
  for await (const chunk of text) {
    splitter.push(chunk, lines);
    const found = lines.find((l): l is TextLine => 'text' in l && l.text.trim() !== '');
    if (found !== undefined) return found.text;
    lines.length = 0;
  }
  splitter.end(lines);
  return lines.find((l): l is TextLine => 'text' in l && l.text.trim() !== '')?.text;
}

/** The names of a file's columns: a table's from its schema, a JSON-lines file's from the keys of its first record. */
async function columnsOf(input: SourceInput): Promise<string[]> {
  if (input.columns !== undefined) return input.columns;
  let line = input.headText;
  if (!isComplete(line) && input.reopen !== undefined) {
    const again = await input.reopen();
    try {
      line = (await firstLine(again.text)) ?? '';
    } finally {
      await again.close?.();
    }
  }
  const parsed = parseJson(line.trim());
  return parsed.ok && parsed.value !== null && typeof parsed.value === 'object' && !Array.isArray(parsed.value) ? Object.keys(parsed.value) : [];
}

/** The inputs of a run split into events files and persons files, each in its order. */
export async function splitPersonsInputs(inputs: readonly SourceInput[]): Promise<{ events: SourceInput[]; persons: SourceInput[] }> {
  const events: SourceInput[] = [];
  const persons: SourceInput[] = [];
  for (const input of inputs) (isPersonsModel(await columnsOf(input)) ? persons : events).push(input);
  return { events, persons };
}

/** Every row of one persons file into the state; the rows that cannot be read into `rejected`. */
async function readPersonsFile(input: SourceInput, state: PersonsState, result: ExportPersons): Promise<void> {
  const splitter = new LineSplitter();
  const lines: Array<TextLine | OverlongLine> = [];
  const reject = (line: number, p: RowProblem): void => {
    result.rejected.push({ file: input.displayName, line, reason: p.reason, field: p.field, message: p.message });
  };
  const take = (): void => {
    for (const entry of lines) {
      const parsed = parseObjectLine(entry);
      if (parsed === undefined) continue;
      result.rowsRead++;
      if (!('object' in parsed)) {
        if ('problem' in parsed) reject(parsed.line, parsed.problem);
        continue;
      }
      const row = readPersonRow(parsed.object);
      if ('reason' in row) reject(entry.line, row);
      else state.add(row);
    }
    lines.length = 0;
  };
  for await (const chunk of input.text) {
    splitter.push(chunk, lines);
    take();
  }
  splitter.end(lines);
  take();
}

/** Where a rejected persons row is: a line of a JSON-lines file, a row of a table. */
function where(input: SourceInput | undefined, line: number): string {
  return input?.columns !== undefined ? `row ${line}` : `line ${line}`;
}

/** The one read the persons of batch exports are staged as: it always holds every person staged so far. */
export const EXPORT_PERSONS_READ = 'posthog-export-persons';

/**
 * Reads the persons files, folds them into the persons staged before (saved in the staging
 * file), and stages the result as the one read EXPORT_PERSONS_READ: rows of its earlier reads
 * no longer wanted (a person updated or deleted since) are withdrawn, so the same persons files,
 * staged in one run or several, in any order, leave the same rows. Returns the read's summaries
 * and what the files gave (the persons counted are all of them, not only this run's).
 */
export async function stageExportPersons(
  inputs: readonly SourceInput[],
  staging: Omit<RangeStaging, 'format' | 'source' | 'archive' | 'readerOptions'> & { defaultTimestampMs?: number },
  reporter: Reporter,
): Promise<{ files: FileSummary[]; persons: ExportPersons }> {
  const state = PersonsState.restore(loadExportPersons(staging.store));
  const persons: ExportPersons = { files: inputs.map((i) => i.displayName), rowsRead: 0, rejected: [], persons: 0, distinctIds: 0, deleted: 0, deletedDistinctIds: 0 };
  for (const input of inputs) {
    reporter.progress(`${input.displayName}: reading persons`);
    await readPersonsFile(input, state, persons);
  }
  for (const r of persons.rejected.slice(0, 10)) {
    const input = inputs.find((i) => i.displayName === r.file);
    reporter.warn(`${r.file}: ${where(input, r.line)}: ${r.field === '' ? '' : `${r.field}: `}${r.message} (${r.reason}); the row is left out`);
  }
  if (persons.rejected.length > 10) reporter.warn(`${count(persons.rejected.length - 10)} more persons rows left out`);
  const { lines, totals } = state.lines();
  Object.assign(persons, totals);
  if (totals.deleted > 0) reporter.notice(`note: ${plural(totals.deleted, 'person')} deleted in the source (with ${plural(totals.deletedDistinctIds, 'distinct id')}) not staged`);
  let files: FileSummary[] = [];
  if (lines.length > 0 || latestRead(staging.store, EXPORT_PERSONS_READ) !== undefined) files = await stageLines(lines.join(''), staging);
  saveExportPersons(staging.store, state.saved());
  return { files, persons };
}

/** The users-file text staged as the read EXPORT_PERSONS_READ, through a spool file. */
async function stageLines(text: string, staging: Omit<RangeStaging, 'format' | 'source' | 'archive' | 'readerOptions'> & { defaultTimestampMs?: number }): Promise<FileSummary[]> {
  const dir = spoolDirOf(staging.store.path);
  await mkdir(dir, { recursive: true });
  const spool = spoolFile(dir, EXPORT_PERSONS_READ);
  await writeFile(spool, text);
  try {
    const format = 'users-jsonl';
    const readerOptions = { columns: { ...PERSON_ROLES }, defaultTimestampMs: staging.defaultTimestampMs };
    const rules = { ...staging.rules, kind: EventKind.person };
    const staged = await stageRange({ ...staging, format, source: findFormat(format)!, archive: false, readerOptions, rules, replaceChanged: true }, spool, EXPORT_PERSONS_READ, () => undefined);
    return staged.files;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
