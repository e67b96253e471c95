/**
 * What every JSON reader shares: a line (or an element of a JSON array) read exactly as JSON
 * (src/sources/json: big integers kept, depth bounded without recursion, lone surrogates and
 * out-of-range numbers refused with their path), then mapped by its format into an item.
 */
import type { CandidateEvent } from '../events/build-event.js';
import { MAX_PROPERTIES_DEPTH } from '../json/json-depth.js';
import { problem, type RowProblem } from '../events/reject-reasons.js';
import { count } from '../util/format.js';
import type { JsonProblem } from '../json/json-problem.js';
import { parseJson } from '../json/read-json.js';
import { LineSplitter, type OverlongLine, type TextLine } from './line-splitter.js';
import type { JsonItemMapper, ReaderOptions, SourceItem, SourceReader } from './source-item.js';
import { CAPTURE_JSON_DEPTH_LIMIT } from '../posthog/limits.js';

/**
 * The deepest a line may nest: its properties object is one level down, so this is as deep as
 * its properties may be (MAX_PROPERTIES_DEPTH). Where a mapping moves fields deeper ($set,
 * $group_set), buildEvent's check of the staged properties has the last word.
 */
export const EVENT_LINE_DEPTH = MAX_PROPERTIES_DEPTH + 1;

export type JsonEntry = TextLine | OverlongLine;

export type { JsonItemMapper } from './source-item.js';

/** Turns one parsed JSON object into a candidate event or the reason it cannot be one. */
export type JsonRecordMapper = (object: Record<string, unknown>) => CandidateEvent | RowProblem;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A JSON problem as a row problem; depth is told in terms of the event's properties. */
function rowProblem(p: JsonProblem, maxDepth: number): RowProblem {
  if (p.reason !== 'too_deep') return problem(p.reason, p.field, p.message);
  const depth = p.depth ?? maxDepth + 1;
  const message = `the row nests ${depth} levels deep; it may nest ${maxDepth}, as event properties may nest at most ${MAX_PROPERTIES_DEPTH} (PostHog refuses a request nested ${CAPTURE_JSON_DEPTH_LIMIT} levels deep)`;
  return problem('too_deep', p.field, message);
}

/**
 * One line as a JSON object, or the problem with it (undefined for a blank line). `maxDepth`
 * bounds its nesting (EVENT_LINE_DEPTH for events).
 */
export function parseObjectLine(entry: JsonEntry, maxDepth = EVENT_LINE_DEPTH): { object: Record<string, unknown>; raw: string } | SourceItem | undefined {
  if ('overlong' in entry) {
    const message = `the line is more than ${count(entry.chars)} characters; an event can be at most 1 MiB (PostHog drops larger ones)`;
    return { line: entry.line, raw: entry.head, problem: problem('too_large', '', message) };
  }
  const text = entry.text;
  if (text.trim() === '') return undefined;
  // Decoded text holds no lone surrogate but where a byte was bad; those rows are rejected
  // as invalid_utf8 (stage-piece.ts) whatever is found here.
  const firstLine = text.includes('\n') || text.includes('\r') ? entry.line : undefined;
  const parsed = parseJson(text, { wellFormedText: true, maxDepth, firstLine });
  if (!parsed.ok) return { line: entry.line, raw: text, problem: rowProblem(parsed.problem, maxDepth) };
  if (!isObject(parsed.value)) return { line: entry.line, raw: text, problem: problem('bad_json', '', 'the line is JSON but not an object') };
  return { object: parsed.value, raw: text };
}

/** A candidate or a problem, as the item of one line. */
export function itemOf(line: number, raw: string, result: CandidateEvent | RowProblem): SourceItem {
  return 'reason' in result ? { line, raw, problem: result } : { line, raw, candidate: result };
}

/** An item mapper from a record mapper: parse, then map. */
export function jsonItemMapper(map: JsonRecordMapper, maxDepth = EVENT_LINE_DEPTH): JsonItemMapper {
  return (entry) => {
    const parsed = parseObjectLine(entry, maxDepth);
    if (parsed === undefined || !('object' in parsed)) return parsed;
    return itemOf(entry.line, parsed.raw, map(parsed.object));
  };
}

/** Splits text into lines and maps each through `toItem`; shared by every JSON-lines format. */
export async function* readLines(text: AsyncIterable<string>, toItem: JsonItemMapper): AsyncIterable<SourceItem[]> {
  const splitter = new LineSplitter();
  const lines: JsonEntry[] = [];
  const flush = (): SourceItem[] => {
    const items: SourceItem[] = [];
    for (const entry of lines) {
      const item = toItem(entry);
      if (item) items.push(item);
    }
    lines.length = 0;
    return items;
  };
  for await (const chunk of text) {
    splitter.push(chunk, lines);
    const items = flush();
    if (items.length > 0) yield items;
  }
  splitter.end(lines);
  const items = flush();
  if (items.length > 0) yield items;
}

/** The JSON-lines reader of a format whose items a mapper made for each file gives. */
export function jsonLinesReader(itemsFor: (options: ReaderOptions) => JsonItemMapper): SourceReader {
  return (text, options) => readLines(text, itemsFor(options));
}
