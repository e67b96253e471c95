/** The source formats `--from` accepts, each a reader of decoded text. */
import { readCsv } from './csv-source.js';
import { readJsonl } from './jsonl-source.js';
import type { SourceReader } from './source-item.js';

export const SOURCE_FORMATS: Readonly<Record<string, SourceReader>> = {
  csv: readCsv,
  jsonl: readJsonl,
};

export function formatNames(): string[] {
  return Object.keys(SOURCE_FORMATS);
}
