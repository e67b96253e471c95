/**
 * How one opened file is read, decided from its first text before any row is staged: its CSV
 * delimiter (given, or found from the header), whether a JSON file holds one array, and the
 * options recorded with the read. Options that change what a row is read as (encoding,
 * delimiter, trimming) also change its uuid: they are content-shaping options, compared with a
 * file's earlier reads as the others are (content-options.ts).
 */
import { InputError } from '../errors.js';
import { CsvTokenizer, type CsvItem } from '../sources/csv-tokenizer.js';
import { markedBytesProblem } from '../sources/invalid-text.js';
import { jsonLayoutOf } from '../json/json-array-splitter.js';
import type { SourceInput } from '../sources/open-input.js';
import type { ReaderOptions, SourceFormat } from '../sources/source-item.js';
import { count } from '../util/format.js';

/** Delimiters tried on a header, comma first: a tie goes to it. */
export const DELIMITERS: readonly string[] = [',', ';', '\t', '|'];

export function delimiterName(delimiter: string): string {
  return delimiter === '\t' ? 'tab' : `"${delimiter}"`;
}

/** The first record of a CSV text (the header), if the text holds one whole. */
function firstRecord(text: string, delimiter: string): CsvItem | undefined {
  const out: CsvItem[] = [];
  const tokenizer = new CsvTokenizer({ delimiter, trim: true });
  tokenizer.push(text, out);
  if (out.length === 0) tokenizer.end(out);
  return out[0];
}

/** The delimiter that splits the header into the most non-empty fields (comma on a tie). */
export function detectDelimiter(headText: string): string {
  let best = ',';
  let bestFields = 0;
  for (const delimiter of DELIMITERS) {
    const header = firstRecord(headText, delimiter);
    const fields = header !== undefined && 'fields' in header ? header.fields.filter((f) => f.trim() !== '').length : 0;
    if (fields > bestFields) {
      best = delimiter;
      bestFields = fields;
    }
  }
  return best;
}

/** What a file is read with, and what is said about it. */
export interface FileReading {
  source: SourceFormat;
  readerOptions: Omit<ReaderOptions, 'displayName'>;
  /** Recorded with the read, next to the command's own options. */
  recorded: Record<string, unknown>;
  notices: string[];
}

/** Refuses a CSV file whose header holds bytes not valid in its encoding: every row would be read wrong. */
function checkHeader(file: SourceInput, delimiter: string): void {
  const header = firstRecord(file.headText, delimiter);
  if (header === undefined) return;
  const bad = markedBytesProblem(header.raw, file.encoding);
  if (bad !== undefined) {
    throw new InputError(`${file.displayName}:${header.line}: the header row is not valid text: ${bad.message}`, ["Pass --encoding with the file's encoding (e.g. windows-1252, latin1, utf-16le)."]);
  }
}

/** How `file` is read, for a format and the reader options the command gave. */
export function fileReading(file: SourceInput, source: SourceFormat, options: Omit<ReaderOptions, 'displayName'>): FileReading {
  const notices: string[] = [];
  const readerOptions = { ...options, encoding: file.encoding };
  if (file.columnar === 'avro') {
    if (source.avro === undefined) throw new InputError(`${file.displayName}: is an Avro file, which this format does not read`, ['Read it with --from avro (a table of events).']);
    return { source, readerOptions: { ...readerOptions, rowGroupRows: file.rowGroupRows, columnar: 'avro' }, recorded: {}, notices };
  }
  if (source.avro === 'only') throw new InputError(`${file.displayName}: is not an Avro object container file (it does not start with Obj\\x01)`);
  if (file.rowGroupRows !== undefined) {
    if (source.parquet === undefined)
      throw new InputError(`${file.displayName}: is a Parquet file, which this format does not read`, ['Read it with --from parquet (a table of events) or --from posthog (a PostHog batch export).']);
    return { source, readerOptions: { ...readerOptions, rowGroupRows: file.rowGroupRows }, recorded: {}, notices };
  }
  if (source.parquet === 'only') throw new InputError(`${file.displayName}: is not a Parquet file (it does not start with PAR1)`);
  const recorded: Record<string, unknown> = { encoding: file.encoding };
  if (file.encoding !== (options.encoding ?? 'utf-8')) notices.push(`read as ${file.encoding}, as its byte-order mark says`);
  if (source.layout === 'csv') {
    const delimiter = options.delimiter ?? detectDelimiter(file.headText);
    if (options.delimiter === undefined && delimiter !== ',') notices.push(`delimiter ${delimiterName(delimiter)} found in the header (--delimiter to choose another)`);
    checkHeader(file, delimiter);
    readerOptions.delimiter = delimiter;
    recorded.delimiter = delimiter;
    recorded.trim = options.trim !== false;
    return { source, readerOptions, recorded, notices };
  }
  if (source.jsonItems !== undefined && jsonLayoutOf(file.headText) === 'array') {
    notices.push('read as one JSON array of events');
    return { source: { ...source, layout: 'array' }, readerOptions, recorded, notices };
  }
  return { source, readerOptions, recorded, notices };
}

/** Rows rejected as invalid_utf8 above which the file is most likely in another encoding. */
const ENCODING_HINT_ROWS = 1000;
const ENCODING_HINT_SHARE = 0.1;

/** What is said after a file is read: a likely wrong encoding. */
export function afterReading(file: SourceInput, counts: { rowsRead: number; rejectedByReason: Record<string, number> }): string[] {
  const invalid = counts.rejectedByReason.invalid_utf8 ?? 0;
  if (invalid === 0 || (invalid <= ENCODING_HINT_ROWS && invalid <= counts.rowsRead * ENCODING_HINT_SHARE)) return [];
  return [
    `${count(invalid)} of ${count(counts.rowsRead)} rows are not valid ${file.encoding === 'utf-8' ? 'UTF-8' : file.encoding}: the file is probably in another encoding. ` +
      "Read it with --encoding <label> (e.g. windows-1252, latin1, utf-16le) into a new staging file: a staged file's encoding cannot change.",
  ];
}
