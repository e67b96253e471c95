/**
 * Readers of plain records (one object per row) for the person and group files: CSV rows as
 * header -> cell objects (empty cells left out, numbers and booleans inferred), JSON lines as
 * the parsed objects. A mapper turns each record into a candidate event.
 */
import { InputError } from '../../errors.js';
import type { CandidateEvent } from '../../events/build-event.js';
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import { headerIndex, inferCell } from '../csv-columns.js';
import { CsvTokenizer, type CsvItem } from '../csv-tokenizer.js';
import { itemOf, parseObjectLine, readLines } from '../jsonl-source.js';
import type { ReaderOptions, SourceItem } from '../source-item.js';

/** Maps one record to a candidate; `required` names the column a CSV header must have. */
export interface RecordMapper {
  required: (options: ReaderOptions) => string;
  map: (record: Record<string, unknown>, options: ReaderOptions) => CandidateEvent | RowProblem;
}

function csvItems(parsed: CsvItem[], state: { names?: string[] }, mapper: RecordMapper, options: ReaderOptions): SourceItem[] {
  const items: SourceItem[] = [];
  for (const entry of parsed) {
    if (!('fields' in entry)) {
      items.push({ line: entry.line, raw: entry.raw, problem: problem('bad_csv', '', entry.message) });
      continue;
    }
    if (state.names === undefined) {
      const index = headerIndex(entry.fields);
      const required = mapper.required(options);
      const error = typeof index === 'string' ? index : index.has(required) ? undefined : `the header has no "${required}" column`;
      if (error !== undefined) throw new InputError(`${options.displayName}:${entry.line}: ${error}`);
      state.names = [...(index as Map<string, number>).keys()];
      continue;
    }
    if (entry.fields.length !== state.names.length) {
      items.push({ line: entry.line, raw: entry.raw, problem: problem('bad_csv', '', `expected ${state.names.length} fields as in the header, found ${entry.fields.length}`) });
      continue;
    }
    const record: Record<string, unknown> = {};
    entry.fields.forEach((cell, i) => {
      if (cell !== '') record[state.names![i]!] = options.inferTypes === false ? cell : inferCell(cell);
    });
    items.push(itemOf(entry.line, entry.raw, mapper.map(record, options)));
  }
  return items;
}

export function csvRecordReader(mapper: RecordMapper) {
  return async function* readRecords(text: AsyncIterable<string>, options: ReaderOptions): AsyncIterable<SourceItem[]> {
    const tokenizer = new CsvTokenizer();
    const state: { names?: string[] } = {};
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

export function jsonlRecordReader(mapper: RecordMapper) {
  return (text: AsyncIterable<string>, options: ReaderOptions): AsyncIterable<SourceItem[]> =>
    readLines(text, (entry) => {
      const parsed = parseObjectLine(entry);
      if (parsed === undefined || !('object' in parsed)) return parsed;
      return itemOf(entry.line, parsed.raw, mapper.map(parsed.object, options));
    });
}
