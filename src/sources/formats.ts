/** The source formats `--from` accepts, each a reader of decoded text. */
import { readCsv } from './csv-source.js';
import { readJsonl } from './jsonl-source.js';
import type { SourceFormat } from './source-item.js';

export const SOURCE_FORMATS: Readonly<Record<string, SourceFormat>> = {
  csv: { reader: readCsv, layout: 'csv' },
  jsonl: { reader: readJsonl, layout: 'lines' },
};

export function formatNames(): string[] {
  return Object.keys(SOURCE_FORMATS);
}
