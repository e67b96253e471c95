/**
 * Stages one piece of a file: reads its rows, applies the event rules, writes them in one
 * transaction. Runs on a worker thread for large files, in-process for small ones.
 */
import { buildEvent, type EventRules } from '../events/build-event.js';
import type { RowProblem } from '../events/reject-reasons.js';
import type { ReaderOptions, SourceItem, SourceReader } from '../sources/source-item.js';
import type { EventWriter, StageEntry } from '../staging/event-writer.js';
import type { ReadCounts } from '../staging/source-reads.js';
import type { TextPiece } from './piece-splitter.js';

export interface PieceContext {
  readId: number;
  reader: SourceReader;
  readerOptions: ReaderOptions;
  rules: EventRules;
  writer: EventWriter;
  /** Text put before every piece (a CSV's header), so each piece parses on its own. */
  prefix: string;
}

export interface PieceResult extends ReadCounts {
  rejectedByReason: Record<string, number>;
  /** The first rejects of the piece, by line. */
  firstRejects: Array<{ line: number } & RowProblem>;
}

/** How many rejects each piece reports for the summary. */
export const SHOWN_REJECTS = 5;

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

async function* single(text: string): AsyncIterable<string> {
  yield text;
}

export function emptyResult(): PieceResult {
  return { rowsRead: 0, staged: 0, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0, rejectedByReason: {}, firstRejects: [] };
}

function noteReject(result: PieceResult, line: number, p: RowProblem): void {
  result.rejectedByReason[p.reason] = (result.rejectedByReason[p.reason] ?? 0) + 1;
  if (result.firstRejects.length < SHOWN_REJECTS) result.firstRejects.push({ line, ...p });
}

function toEntry(item: SourceItem, rules: EventRules, result: PieceResult): StageEntry | undefined {
  result.rowsRead++;
  if ('problem' in item) {
    noteReject(result, item.line, item.problem);
    return item;
  }
  const outcome = buildEvent(item.candidate, rules);
  if (outcome.type === 'skipped') {
    result.skipped++;
    return undefined;
  }
  if (outcome.type === 'rejected') {
    noteReject(result, item.line, outcome.problem);
    return { line: item.line, raw: item.raw, problem: outcome.problem };
  }
  if (outcome.recent) result.recent++;
  return { line: item.line, raw: item.raw, event: outcome.event };
}

export async function stagePiece(context: PieceContext, piece: TextPiece): Promise<PieceResult> {
  const result = emptyResult();
  const lineOffset = piece.firstLine - 1 - countNewlines(context.prefix);
  const entries: StageEntry[] = [];
  for await (const items of context.reader(single(context.prefix + piece.text), context.readerOptions)) {
    for (const item of items) {
      item.line += lineOffset;
      const entry = toEntry(item, context.rules, result);
      if (entry) entries.push(entry);
    }
  }
  const counts = context.writer.write(context.readId, entries);
  result.staged = counts.staged;
  result.alreadyStaged = counts.alreadyStaged;
  result.duplicates = counts.duplicates;
  result.rejected = counts.rejected;
  for (const conflict of counts.conflicts) noteReject(result, conflict.line, conflict.problem);
  return result;
}
