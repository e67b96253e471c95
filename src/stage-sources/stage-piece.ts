/**
 * Stages one piece of a file: reads its rows and applies the event rules (on a worker thread
 * for large files, in-process for small ones), then writes them in one transaction (always
 * on the thread that holds the staging file, so one connection does every write).
 */
import { buildEvent, type EventRules } from '../events/build-event.js';
import type { RowProblem } from '../events/reject-reasons.js';
import { firstAndLast, observe, type GroupObservation } from '../events/group-observations.js';
import { SKIPPED_BY_MAP } from '../events/row-filters.js';
import { rowSteps, stageRow, type EventOutcome, type RowSteps, type RowTransform } from '../events/row-steps.js';
import { rulesFromSpec, type RulesSpec } from '../events/rules-spec.js';
import { addNote, type NoteCounts, type SourceNote } from '../events/source-notes.js';
import { locateInRowGroup } from '../sources/columnar/row-group-items.js';
import { findFormat } from '../sources/formats.js';
import { isWellFormedText, markedBytesProblem, wellFormed } from '../sources/invalid-text.js';
import { countLineEnds, headOf } from '../sources/line-ends.js';
import type { JsonItemMapper, ReaderOptions, SourceItem, SourceReader } from '../sources/source-item.js';
import { EventBatchBuilder, type EventBatch } from '../staging/event-batch.js';
import type { EventWriter, ReadScope, RejectEntry } from '../staging/event-writer.js';
import type { PieceProgress, ReadCounts } from '../staging/source-reads.js';
import { pieceTexts } from './byte-pieces.js';
import { reviewSessionId } from './session-ids.js';
import { largeRecord, MAX_ROW_BYTES, pieceLength, REJECT_HEAD_CHARS, type TextPiece } from './text-piece.js';

/** What reading a piece needs; plain data but for the reader and rules. */
export interface PieceContext {
  reader: SourceReader;
  /** JSON formats: one array element as an item (files holding one JSON array). */
  jsonItem: JsonItemMapper | undefined;
  readerOptions: ReaderOptions;
  rules: EventRules;
  /** The filters and the transform, when the run has any (see row-steps.ts). */
  steps: RowSteps | undefined;
  /** Text put before every piece (a CSV's header), so each piece parses on its own. */
  prefix: string;
}

/**
 * The context a pool or worker reads pieces with, from plain setup data and the transform of
 * `setup.rules.transform`, loaded on this thread (see transform-module.ts).
 */
export function pieceContext(setup: { format: string; readerOptions: ReaderOptions; rules: RulesSpec; prefix: string }, reader: SourceReader, transform?: RowTransform): PieceContext {
  const jsonItem = findFormat(setup.format)?.jsonItems?.(setup.readerOptions);
  const rules = rulesFromSpec(setup.rules);
  return { reader, jsonItem, readerOptions: setup.readerOptions, rules, steps: rowSteps(rules, setup.rules.filters, transform), prefix: setup.prefix };
}

/** Where a read's pieces are written. */
export interface PieceTarget {
  scope: ReadScope;
  writer: EventWriter;
  /**
   * Called in the transaction that wrote a piece, with its counts and the point the read has
   * reached after it: the rows and that point are committed together (pieces come in file order).
   */
  written(result: PieceResult, progress: PieceProgress, textChars?: number): void;
  /** Called in the same transaction with the group properties the piece's rows carried, if any. */
  observed?(groups: readonly GroupObservation[]): void;
}

export interface PieceResult extends ReadCounts {
  rejectedByReason: Record<string, number>;
  /** Skipped rows by reason (see SkippedBy in source-reads.ts). */
  skippedByReason: Record<string, number>;
  /** The first rejects of the piece, by line. */
  firstRejects: Array<{ line: number } & RowProblem>;
  /** Notes on rows that staged (see source-notes.ts). */
  notes: NoteCounts;
}

/** How many rejects each piece reports for the summary. */
export const SHOWN_REJECTS = 5;

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
  return { rowsRead: 0, staged: 0, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0, added: 0, rejectedByReason: {}, skippedByReason: {}, firstRejects: [], notes: {} };
}

function noteReject(result: PieceResult, line: number, p: RowProblem): void {
  result.rejectedByReason[p.reason] = (result.rejectedByReason[p.reason] ?? 0) + 1;
  if (result.firstRejects.length < SHOWN_REJECTS) result.firstRejects.push({ line, ...p });
}

function noteSkip(result: PieceResult, reason: string): void {
  result.skipped++;
  result.skippedByReason[reason] = (result.skippedByReason[reason] ?? 0) + 1;
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

/** Adds one event of a row; the row's group properties are observed with its first event. */
function addEvent(item: Extract<SourceItem, { candidate: unknown }>, outcome: EventOutcome, piece: Building, first: boolean): void {
  if (outcome.recent) piece.result.recent++;
  if (first) for (const group of item.candidate.groupProperties ?? []) piece.groups.push(observe(group, outcome.event.timestampMs, outcome.event.uuid));
  piece.events.add(item.line, outcome.event, outcome.zoneKey, outcome.facts, outcome.pair);
}

/**
 * Adds one read item to the prepared piece: its event (or, through a transform, several), a
 * reject, or nothing (skipped, and why).
 */
function addItem(item: SourceItem, context: PieceContext, piece: Building): void {
  const { result, rejects } = piece;
  result.rowsRead++;
  if ('problem' in item) {
    const located = locateInRowGroup(context.readerOptions, item.line, item.problem);
    noteReject(result, item.line, located);
    rejects.push({ ...item, problem: located });
    return;
  }
  const rules = context.rules;
  const sessionNotes = reviewSessionId(item.candidate.properties, rules.sessionize === true);
  const outcome = context.steps === undefined ? buildEvent(item.candidate, rules) : stageRow(item.candidate, rules, context.steps, { file: context.readerOptions.displayName, line: item.line });
  if (outcome.type === 'skipped') return noteSkip(result, (outcome as { reason?: string }).reason ?? SKIPPED_BY_MAP);
  if (outcome.type === 'rejected') {
    const located = locateInRowGroup(context.readerOptions, item.line, outcome.problem);
    noteReject(result, item.line, located);
    rejects.push({ line: item.line, raw: item.raw, problem: located });
    return;
  }
  countNotes(result, item.candidate.notes);
  countNotes(result, sessionNotes);
  if (outcome.type === 'event') return addEvent(item, outcome, piece, true);
  result.added += outcome.events.length - 1;
  for (let i = 0; i < outcome.events.length; i++) addEvent(item, outcome.events[i]!, piece, i === 0);
}

/** A piece read and checked, not yet written. Plain data: it may cross from a worker. */
export interface PreparedPiece {
  result: PieceResult;
  events: EventBatch;
  rejects: RejectEntry[];
  /** Group properties seen, first and last of each version (see group-observations.ts). */
  groups: GroupObservation[];
  /** A byte piece's text length in UTF-16 units: how far the read moves on with it. */
  textChars?: number;
}

/** The rows of a JSON array piece: one element per text, each on its own line. */
function* elementItems(context: PieceContext, piece: TextPiece): Iterable<SourceItem> {
  const lines = piece.elementLines!;
  for (let i = 0; i < piece.texts.length; i++) {
    const item = context.jsonItem!({ line: lines[i]!, text: piece.texts[i]! });
    if (item !== undefined) yield item;
  }
}

/** A piece's rows as the format's reader gives them, with their lines in the file. */
async function* readRows(context: PieceContext, piece: TextPiece, texts: readonly string[]): AsyncIterable<SourceItem[]> {
  if (piece.rejects !== undefined) yield piece.rejects;
  if (piece.elementLines !== undefined) {
    yield [...elementItems(context, piece)];
    return;
  }
  if (texts.length === 0) return;
  const lineOffset = piece.firstLine - 1 - countLineEnds(context.prefix);
  for await (const items of context.reader(slices(context.prefix, texts), context.readerOptions)) {
    for (const item of items) item.line += lineOffset;
    yield items;
  }
}

/**
 * A UTF-16 unit is at most 3 bytes in UTF-8: a row of fewer units than this cannot be over
 * MAX_ROW_BYTES, and only longer ones (rare) have their bytes counted.
 */
const COUNT_BYTES_FROM_CHARS = Math.floor(MAX_ROW_BYTES / 3);

/**
 * A row over MAX_ROW_BYTES that the splitter read because it holds fewer characters than that
 * (multi-byte text): rejected as too_large too, so the bound is the same in bytes whatever the
 * text, and rows of 900 KiB to 1 MiB only are left to event_too_large (the event as sent).
 */
function tooLarge(item: SourceItem): SourceItem | undefined {
  if (item.raw.length <= COUNT_BYTES_FROM_CHARS) return undefined;
  const bytes = Buffer.byteLength(item.raw);
  return bytes > MAX_ROW_BYTES ? largeRecord(item.line, headOf(item.raw, REJECT_HEAD_CHARS), bytes, 'row', false) : undefined;
}

/**
 * A piece's rows, where a row over 1 MiB is rejected as too_large, and a row holding bytes
 * that were not valid in the file's encoding as such (invalid_utf8), whatever its reader made
 * of it. The decoder marks those bytes (text-decoder.ts): only a piece holding a mark has its
 * rows looked at for them.
 */
async function* readItems(context: PieceContext, piece: TextPiece, text: PieceText = pieceText(piece)): AsyncIterable<SourceItem[]> {
  const { texts, marked } = text;
  for await (const items of readRows(context, piece, texts)) {
    for (let i = 0; i < items.length; i++) {
      const large = tooLarge(items[i]!);
      if (large !== undefined) items[i] = large;
      else if (marked) {
        const bad = markedBytesProblem(items[i]!.raw, context.readerOptions.encoding);
        if (bad !== undefined) items[i] = { line: items[i]!.line, raw: wellFormed(items[i]!.raw), problem: bad };
      }
    }
    yield items;
  }
}

/** A piece's text as its reader reads it, and whether any of it marks bytes that were not valid. */
interface PieceText {
  texts: readonly string[];
  marked: boolean;
  /** A byte piece's text length in UTF-16 units (see byte-pieces.ts). */
  chars?: number;
}

/** The text of a piece: its texts, or its bytes decoded here. */
function pieceText(piece: TextPiece): PieceText {
  if (piece.bytes === undefined) return { texts: piece.texts, marked: !piece.texts.every(isWellFormedText) };
  const { texts, valid, chars } = pieceTexts(piece.bytes);
  return { texts, marked: !valid, chars };
}

/** Reads a piece's rows and applies the event rules; writes nothing. */
export async function preparePiece(context: PieceContext, piece: TextPiece): Promise<PreparedPiece> {
  // The events' text is about the piece's own size: sized so, the buffer seldom grows.
  const events = new EventBatchBuilder(Math.ceil((piece.bytes?.length ?? pieceLength(piece)) * 1.25) + 64 * 1024, context.rules.identityPairs !== undefined);
  const building: Building = { result: emptyResult(), rejects: [], events, groups: [] };
  const text = pieceText(piece);
  for await (const items of readItems(context, piece, text)) {
    for (const item of items) addItem(item, context, building);
  }
  return { result: building.result, rejects: building.rejects, events: building.events.finish(), groups: firstAndLast(building.groups), textChars: text.chars };
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
export async function writePiece(context: PieceContext, target: PieceTarget, piece: TextPiece, prepared: PreparedPiece, progress: PieceProgress): Promise<PieceResult> {
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
      target.writer.writeConflicts(
        readId,
        counts.conflicts.map((c) => ({ line: c.line, problem: c.problem, raw: raws.get(c.line) ?? '' })),
      );
      for (const conflict of counts.conflicts) noteReject(result, conflict.line, conflict.problem);
    }
    if (prepared.groups.length > 0) target.observed?.(prepared.groups);
    target.written(result, progress, prepared.textChars);
    return result;
  });
}
