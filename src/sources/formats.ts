/** The source formats: `--from` of export-source, and the person and group file formats. */
import { readCsv } from './csv-source.js';
import { readJsonl } from './jsonl-source.js';
import { groupMapper } from './people/group-record.js';
import { csvRecordReader, jsonlRecordReader } from './people/record-readers.js';
import { userMapper } from './people/user-record.js';
import type { SourceFormat } from './source-item.js';

/** Event sources, by the name `--from` takes. */
export const SOURCE_FORMATS: Readonly<Record<string, SourceFormat>> = {
  csv: { reader: readCsv, layout: 'csv' },
  jsonl: { reader: readJsonl, layout: 'lines' },
};

/** Users and groups files, by `<kind>-<format>`. */
export const RECORD_FORMATS: Readonly<Record<string, SourceFormat>> = {
  'users-csv': { reader: csvRecordReader(userMapper), layout: 'csv' },
  'users-jsonl': { reader: jsonlRecordReader(userMapper), layout: 'lines' },
  'groups-csv': { reader: csvRecordReader(groupMapper), layout: 'csv' },
  'groups-jsonl': { reader: jsonlRecordReader(groupMapper), layout: 'lines' },
};

/** Any format by its registered name (worker threads find theirs here). */
export function findFormat(name: string): SourceFormat | undefined {
  return SOURCE_FORMATS[name] ?? RECORD_FORMATS[name];
}

export function formatNames(): string[] {
  return Object.keys(SOURCE_FORMATS);
}
