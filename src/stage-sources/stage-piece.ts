/**
 * Stages one piece of a file: reads its rows and applies the event rules (on a worker thread
 * for large files, in-process for small ones), then writes them in one transaction (always
 * on the thread that holds the staging file, so one connection does every write).
 */
import { buildEvent, type EventRules } from '../events/build-event.js';
import type { RowProblem } from '../events/reject-reasons.js';
import { firstAndLast, observe, type GroupObservation } from '../events/group-observations.js';
import { rulesFromSpec, type RulesSpec } from '../events/rules-spec.js';
import { addNote, type NoteCounts, type SourceNote } from '../events/source-notes.js';
import type { ReaderOptions, SourceItem, SourceReader } from '../sources/source-item.js';
import { EventBatchBuilder, type EventBatch } from '../staging/event-batch.js';
import type { EventWriter, ReadScope, RejectEntry } from '../staging/event-writer.js';
import type { ReadCounts, ReadProgress } from '../staging/source-reads.js';
import { pieceLength, type TextPiece } from './piece-splitter.js';
import { reviewSessionId } from './session-ids.js';

/** What reading a piece needs; plain data but for the reader and rules. */
export interface PieceContext {
  reader: SourceReader;
  readerOptions: ReaderOptions;
  rules: EventRules;
  /** Text put before every piece (a CSV's header), so each piece parses on its own. */
  prefix: string;
}

/** The context a pool or worker reads pieces with, from plain setup data. */
export function pieceContext(setup: { readerOptions: ReaderOptions; rules: RulesSpec; prefix: string }, reader: SourceReader): PieceContext {
  return { reader, readerOptions: setup.readerOptions, rules: rulesFromSpec(setup.rules), prefix: setup.prefix };
}

/** Where a read's pieces are written. */
export interface PieceTarget {
  scope: ReadScope;
  writer: EventWriter;
  /**
   * Called in the transaction that wrote a piece, with its counts and the point the read has
   * reached after it: the rows and that point are committed together (pieces come in file order).
   */
  written(result: PieceResult, progress: ReadProgress): void;
  /** Called in the same transaction with the group properties the piece's rows carried, if any. */
  observed?(groups: readonly GroupObservation[]): void;
}

export interface PieceResult extends ReadCounts {
  rejectedByReason: Record<string, number>;
  /** The first rejects of the piece, by line. */
  firstRejects: Array<{ line: number } & RowProblem>;
  /** Notes on rows that staged (see source-notes.ts). */
  notes: NoteCounts;
}

/** How many rejects each piece reports for the summary. */
export const SHOWN_REJECTS = 5;

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/** Text handed to the reader at a time: small enough that a slice's rows die young. */
const SLICE_CHARS = 64 * 1024;

/**
 * The prefix, then the piece's texts in slices ending at line ends where possible. Readers keep
 * a partial record across slices, so any cut is correct; cutting at line ends only saves them
 * re-buffering. Reading a whole piece at once kept every row of it alive together, and the
 * garbage collector spent a quarter of the staging time copying them.
 */
async function* slices(prefix: string, texts: readonly string[]): AsyncIterable<string> {
  if (prefix.length > 0) yield prefix;
  for (const text of texts) {
    let start = 0;
    while (start < text.length) {
      let end = Math.min(text.length, start + SLICE_CHARS);
      if (end < text.length) {
        const nl = text.lastIndexOf('\n', end - 1);
        if (nl >= start) end = nl + 1;
      }
      yield text.slice(start, end);
      start = end;
    }
  }
}

export function emptyResult(): PieceResult {
  return { rowsRead: 0, staged: 0, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0, rejectedByReason: {}, firstRejects: [], notes: {} };
}

function noteReject(result: PieceResult, line: number, p: RowProblem): void {
  result.rejectedByReason[p.reason] = (result.rejectedByReason[p.reason] ?? 0) + 1;
  if (result.firstRejects.length < SHOWN_REJECTS) result.firstRejects.push({ line, ...p });
}

function countNotes(result: PieceResult, notes: readonly SourceNote[] | undefined): void {
  if (notes === undefined) return;
  for (const note of notes) addNote(result.notes, note.code, 1, note.example === undefined ? [] : [note.example]);
}

interface Building {
  result: PieceResult;
  rejects: RejectEntry[];
  events: EventBatchBuilder;
  groups: GroupObservation[];
}

/** Adds one read item to the prepared piece: an event, a reject, or nothing (skipped). */
function addItem(item: SourceItem, rules: EventRules, piece: Building): void {
  const { result, rejects, events } = piece;
  result.rowsRead++;
  if ('problem' in item) {
    noteReject(result, item.line, item.problem);
    rejects.push(item);
    return;
  }
  const sessionNotes = reviewSessionId(item.candidate.properties, rules.sessionize === true);
  const outcome = buildEvent(item.candidate, rules);
  if (outcome.type === 'skipped') {
    result.skipped++;
    return;
  }
  if (outcome.type === 'rejected') {
    noteReject(result, item.line, outcome.problem);
    rejects.push({ line: item.line, raw: item.raw, problem: outcome.problem });
    return;
  }
  if (outcome.recent) result.recent++;
  countNotes(result, item.candidate.notes);
  countNotes(result, sessionNotes);
  for (const group of item.candidate.groupProperties ?? []) piece.groups.push(observe(group, outcome.event.timestampMs, outcome.event.uuid));
  events.add(item.line, outcome.event, outcome.zoneKey);
}

/** A piece read and checked, not yet written. Plain data: it may cross from a worker. */
export interface PreparedPiece {
  result: PieceResult;
  events: EventBatch;
  rejects: RejectEntry[];
  /** Group properties seen, first and last of each version (see group-observations.ts). */
  groups: GroupObservation[];
}

/** A piece's rows as the format's reader gives them, with their lines in the file. */
async function* readItems(context: PieceContext, piece: TextPiece): AsyncIterable<SourceItem[]> {
  const lineOffset = piece.firstLine - 1 - countNewlines(context.prefix);
  for await (const items of context.reader(slices(context.prefix, piece.texts), context.readerOptions)) {
    for (const item of items) item.line += lineOffset;
    yield items;
  }
}

/** Reads a piece's rows and applies the event rules; writes nothing. */
export async function preparePiece(context: PieceContext, piece: TextPiece): Promise<PreparedPiece> {
  // The events' text is about the piece's own size: sized so, the buffer seldom grows.
  const events = new EventBatchBuilder(Math.ceil(pieceLength(piece) * 1.25) + 64 * 1024);
  const building: Building = { result: emptyResult(), rejects: [], events, groups: [] };
  for await (const items of readItems(context, piece)) {
    for (const item of items) addItem(item, context.rules, building);
  }
  return { result: building.result, rejects: building.rejects, events: building.events.finish(), groups: firstAndLast(building.groups) };
}

/** The raw text of the rows of `piece` that start on `lines`, read again (a rare path). */
async function rawsOf(context: PieceContext, piece: TextPiece, lines: ReadonlySet<number>): Promise<Map<number, string>> {
  const raws = new Map<number, string>();
  for await (const items of readItems(context, piece)) {
    for (const item of items) if (lines.has(item.line)) raws.set(item.line, item.raw);
  }
  return raws;
}

/**
 * Writes a prepared piece, completes its counts and records the read's progress, in one
 * transaction. Rows that conflict with an earlier version of their uuid are rejects too; their
 * raw text is read again from the piece, since it is not carried with every event.
 */
export async function writePiece(context: PieceContext, target: PieceTarget, piece: TextPiece, prepared: PreparedPiece, progress: ReadProgress): Promise<PieceResult> {
  const { result } = prepared;
  const readId = target.scope.readId;
  return target.writer.inTransaction(async () => {
    const counts = target.writer.writeBatch(target.scope, prepared.events, prepared.rejects);
    result.staged = counts.staged;
    result.alreadyStaged = counts.alreadyStaged;
    result.duplicates = counts.duplicates;
    result.rejected = counts.rejected;
    if (counts.conflicts.length > 0) {
      const raws = await rawsOf(context, piece, new Set(counts.conflicts.map((c) => c.line)));
      target.writer.writeConflicts(readId, counts.conflicts.map((c) => ({ line: c.line, problem: c.problem, raw: raws.get(c.line) ?? '' })));
      for (const conflict of counts.conflicts) noteReject(result, conflict.line, conflict.problem);
    }
    if (prepared.groups.length > 0) target.observed?.(prepared.groups);
    target.written(result, progress);
    return result;
  });
}
