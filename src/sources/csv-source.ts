/** The CSV reader: tokenizer, header, then one candidate per record. */
import { InputError } from '../errors.js';
import { problem } from '../events/reject-reasons.js';
import { csvRecordToCandidate, readCsvHeader, type CsvColumns } from './csv-columns.js';
import { CsvTokenizer, type CsvItem } from './csv-tokenizer.js';
import { csvSyntax, type ReaderOptions, type SourceItem } from './source-item.js';

function toItems(parsed: CsvItem[], state: { columns?: CsvColumns }, options: ReaderOptions): SourceItem[] {
  const items: SourceItem[] = [];
  for (const entry of parsed) {
    if (!('fields' in entry)) {
      items.push({ line: entry.line, raw: entry.raw, problem: problem('bad_csv', '', entry.message) });
      continue;
    }
    if (state.columns === undefined) {
      const header = readCsvHeader(entry.fields, options.columns, options.delimiter);
      if (typeof header === 'string') throw new InputError(`${options.displayName}:${entry.line}: ${header}`);
      state.columns = header;
      continue;
    }
    const result = csvRecordToCandidate(state.columns, entry, options.inferTypes !== false);
    if ('reason' in result) items.push({ line: entry.line, raw: entry.raw, problem: result });
    else items.push({ line: entry.line, raw: entry.raw, candidate: result });
  }
  return items;
}

export async function* readCsv(text: AsyncIterable<string>, options: ReaderOptions): AsyncIterable<SourceItem[]> {
  const tokenizer = new CsvTokenizer(csvSyntax(options));
  const state: { columns?: CsvColumns } = {};
  for await (const chunk of text) {
    const parsed: CsvItem[] = [];
    tokenizer.push(chunk, parsed);
    const items = toItems(parsed, state, options);
    if (items.length > 0) yield items;
  }
  const parsed: CsvItem[] = [];
  tokenizer.end(parsed);
  const items = toItems(parsed, state, options);
  if (state.columns === undefined) throw new InputError(`${options.displayName}: the file is empty (no header row)`);
  if (items.length > 0) yield items;
}
