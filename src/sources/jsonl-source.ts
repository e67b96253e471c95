/**
 * The JSON-lines reader: one object per line with event, distinct_id (top level or in
 * properties), timestamp, properties and uuid. Other top-level fields become properties so
 * nothing in the file is silently lost, except the capture-time fields listed below.
 */
import type { CandidateEvent } from '../events/build-event.js';
import { canonicalJson } from '../events/canonical-json.js';
import { problem, type RowProblem } from '../events/reject-reasons.js';
import { LineSplitter, type OverlongLine, type TextLine } from './line-splitter.js';
import type { ReaderOptions, SourceItem } from './source-item.js';

const STANDARD = new Set(['event', 'distinct_id', 'timestamp', 'uuid', 'properties', '$set', '$set_once']);
/** Dropped: keys (secrets, never staged) and capture-time fields that would shift timestamps. */
const DROPPED = new Set(['api_key', 'token', 'sent_at', 'offset']);

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function missing(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** A parsed JSON-lines object as a candidate event. Exported for the vendor readers. */
export function jsonObjectToCandidate(object: Record<string, unknown>, identity: string): CandidateEvent | RowProblem {
  if (object.properties !== undefined && !isObject(object.properties)) {
    return problem('bad_properties', 'properties', 'properties must be a JSON object');
  }
  const properties: Record<string, unknown> = { ...(object.properties as Record<string, unknown> | undefined) };
  for (const [key, value] of Object.entries(object)) {
    if (DROPPED.has(key) || (STANDARD.has(key) && key[0] !== '$')) continue;
    if (Object.hasOwn(properties, key)) {
      return problem('duplicate_property', key, `"${key}" is both a top-level field and a property`);
    }
    properties[key] = value;
  }
  const topLevel = missing(object.distinct_id);
  return {
    event: object.event,
    distinctId: topLevel ? properties.distinct_id : object.distinct_id,
    timestamp: object.timestamp,
    uuid: object.uuid,
    properties,
    identity,
    fieldNames: { distinctId: topLevel && !missing(properties.distinct_id) ? 'properties.distinct_id' : 'distinct_id' },
  };
}

/**
 * One line as a JSON object, or the problem with it (undefined for a blank line). Shared by
 * every JSON-lines reader.
 */
export function parseObjectLine(entry: TextLine | OverlongLine): { object: Record<string, unknown>; raw: string } | SourceItem | undefined {
  if ('overlong' in entry) {
    return { line: entry.line, raw: entry.head, problem: problem('bad_json', '', 'line is too long to be one record') };
  }
  if (entry.text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(entry.text);
  } catch (error) {
    return { line: entry.line, raw: entry.text, problem: problem('bad_json', '', `not valid JSON: ${(error as Error).message}`) };
  }
  if (!isObject(parsed)) return { line: entry.line, raw: entry.text, problem: problem('bad_json', '', 'the line is JSON but not an object') };
  return { object: parsed, raw: entry.text };
}

/** A candidate or a problem, as the item of one line. */
export function itemOf(line: number, raw: string, result: CandidateEvent | RowProblem): SourceItem {
  return 'reason' in result ? { line, raw, problem: result } : { line, raw, candidate: result };
}

/** Turns one parsed JSON object into a candidate event or the reason it cannot be one. */
export type JsonRecordMapper = (object: Record<string, unknown>) => CandidateEvent | RowProblem;

const plainJsonl: JsonRecordMapper = (object) => jsonObjectToCandidate(object, canonicalJson(object));

/** One line of a JSON-lines file as an item: parsed, then mapped by `map` (plain JSONL by default). */
export function toJsonItem(entry: TextLine | OverlongLine, map: JsonRecordMapper = plainJsonl): SourceItem | undefined {
  const parsed = parseObjectLine(entry);
  if (parsed === undefined || !('object' in parsed)) return parsed;
  return itemOf(entry.line, parsed.raw, map(parsed.object));
}

/** Splits text into lines and maps each through `toItem`; shared by every JSON-lines format. */
export async function* readLines(
  text: AsyncIterable<string>,
  toItem: (entry: TextLine | OverlongLine) => SourceItem | undefined,
): AsyncIterable<SourceItem[]> {
  const splitter = new LineSplitter();
  const lines: Array<TextLine | OverlongLine> = [];
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

export function readJsonl(text: AsyncIterable<string>, _options: ReaderOptions): AsyncIterable<SourceItem[]> {
  return readLines(text, (entry) => toJsonItem(entry));
}
