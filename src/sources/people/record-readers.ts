/**
 * Readers of plain records (one object per row) for the person and group files: CSV rows as
 * header -> cell objects (empty cells left out, numbers and booleans inferred), JSON lines as
 * the parsed objects. A mapper turns each record into a candidate event. The fields a mapper
 * reads (distinct_id, the group key, timestamp, uuid) are found by name: for CSV the header
 * that matches ignoring case, or the one --column (--key-column) names; for JSON the key or
 * dotted path --column names.
 */
import { InputError } from '../../errors.js';
import type { CandidateEvent } from '../../events/build-event.js';
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import { delimiterHint, findColumn, headerIndex, inferCell, listNames } from '../csv-columns.js';
import { CsvTokenizer, type CsvItem } from '../csv-tokenizer.js';
import { itemOf, jsonItemMapper, jsonLinesReader } from '../json-lines.js';
import { setOwnProperty } from '../../json/own-property.js';
import { csvSyntax, type JsonItemMapper, type ReaderOptions, type SourceItem } from '../source-item.js';

/** A field a person or group row is read by, with the name it has when --column does not say. */
export interface RecordRole {
  role: string;
  name: string;
  /** The flag that names another column for it, for messages. */
  flag: string;
}

/** Maps one record to a candidate; `roles` lists the fields it reads, the first one required. */
export interface RecordMapper {
  roles: (options: ReaderOptions) => RecordRole[];
  map: (record: Record<string, unknown>, options: ReaderOptions) => CandidateEvent | RowProblem;
}

/** The name a role is read from: the header or path --column gives, else its own. */
export function roleName(options: ReaderOptions, role: RecordRole): string {
  return (options.columns as Record<string, string> | undefined)?.[role.role] ?? role.name;
}

/** The reader options with each role's name resolved against a CSV header (ignoring case). */
function resolveHeader(fields: string[], mapper: RecordMapper, options: ReaderOptions, line: number): { names: string[]; options: ReaderOptions } {
  const where = `${options.displayName}:${line}`;
  const index = headerIndex(fields);
  if (typeof index === 'string') throw new InputError(`${where}: ${index}`);
  const names = [...index.keys()];
  const columns: Record<string, string> = {};
  for (const [i, role] of mapper.roles(options).entries()) {
    const wanted = roleName(options, role);
    const found = findColumn(index, wanted, role.role);
    if (typeof found === 'string') throw new InputError(`${where}: ${found}`);
    if (found === -1 && i === 0) {
      throw new InputError(
        `${where}: the header has no "${wanted}" column (found: ${listNames(names)})${delimiterHint(names, options.delimiter)}; use ${role.flag}${role.flag.endsWith('=') ? '' : ' '}<header> to name it`,
      );
    }
    columns[role.role] = found === -1 ? wanted : names[found]!;
  }
  return { names, options: { ...options, columns } };
}

function csvItems(parsed: CsvItem[], state: { names?: string[]; options?: ReaderOptions }, mapper: RecordMapper, options: ReaderOptions): SourceItem[] {
  const items: SourceItem[] = [];
  for (const entry of parsed) {
    if (!('fields' in entry)) {
      items.push({ line: entry.line, raw: entry.raw, problem: problem('bad_csv', '', entry.message) });
      continue;
    }
    if (state.names === undefined) {
      Object.assign(state, resolveHeader(entry.fields, mapper, options, entry.line));
      continue;
    }
    if (entry.fields.length !== state.names.length) {
      items.push({ line: entry.line, raw: entry.raw, problem: problem('bad_csv', '', `expected ${state.names.length} fields as in the header, found ${entry.fields.length}`) });
      continue;
    }
    const record: Record<string, unknown> = {};
    entry.fields.forEach((cell, i) => {
      if (cell !== '') setOwnProperty(record, state.names![i]!, options.inferTypes === false ? cell : inferCell(cell));
    });
    items.push(itemOf(entry.line, entry.raw, mapper.map(record, state.options!)));
  }
  return items;
}

export function csvRecordReader(mapper: RecordMapper) {
  return async function* readRecords(text: AsyncIterable<string>, options: ReaderOptions): AsyncIterable<SourceItem[]> {
    const tokenizer = new CsvTokenizer(csvSyntax(options));
    const state: { names?: string[]; options?: ReaderOptions } = {};
    const parsed: CsvItem[] = [];
    for await (const chunk of text) {
      tokenizer.push(chunk, parsed);
      yield csvItems(parsed.splice(0), state, mapper, options);
    }
    tokenizer.end(parsed);
    const items = csvItems(parsed, state, mapper, options);
    if (state.names === undefined) throw new InputError(`${options.displayName}: the file is empty (no header row)`);
    yield items;
  };
}

/** One line of a users or groups JSON-lines file as an item. */
export function jsonlRecordItems(mapper: RecordMapper): (options: ReaderOptions) => JsonItemMapper {
  return (options) => jsonItemMapper((record) => mapper.map(record, options));
}

export function jsonlRecordReader(mapper: RecordMapper) {
  return jsonLinesReader(jsonlRecordItems(mapper));
}
