/** The source formats: `--from` of export-source, and the person and group file formats. */
import { readCsv } from './csv-source.js';
import { readJsonl } from './jsonl-source.js';
import { groupMapper } from './people/group-record.js';
import { csvRecordReader, jsonlRecordReader } from './people/record-readers.js';
import { userMapper } from './people/user-record.js';
import { ANY_GZIP } from './input-names.js';
import type { SourceFormat } from './source-item.js';
import { AMPLITUDE_EVENT_RENAMES, readAmplitude } from './vendors/amplitude.js';
import { MIXPANEL_EVENT_RENAMES, readMixpanel } from './vendors/mixpanel.js';
import { GA4_EVENT_RENAMES, readGa4 } from './vendors/ga4.js';
import { readPostHog } from './vendors/posthog.js';
import { readSegment } from './vendors/segment.js';

const JSON_LINES = ['.jsonl', '.ndjson', '.json'] as const;

/** Event sources, by the name `--from` takes. */
export const SOURCE_FORMATS: Readonly<Record<string, SourceFormat>> = {
  csv: { reader: readCsv, layout: 'csv', extensions: ['.csv'], timezone: 'rows' },
  jsonl: { reader: readJsonl, layout: 'lines', extensions: JSON_LINES, timezone: 'rows' },
  mixpanel: { reader: readMixpanel, layout: 'lines', extensions: [...JSON_LINES, '.txt'], timezone: 'project', eventRenames: MIXPANEL_EVENT_RENAMES },
  amplitude: { reader: readAmplitude, layout: 'lines', extensions: JSON_LINES, timezone: 'utc', eventRenames: AMPLITUDE_EVENT_RENAMES },
  posthog: { reader: readPostHog, layout: 'lines', extensions: JSON_LINES, timezone: 'utc' },
  // Segment's archive names its files `<received-day>/<name>.gz`: any gzipped file is read.
  segment: { reader: readSegment, layout: 'lines', extensions: [...JSON_LINES, '.txt', ANY_GZIP], timezone: 'rows' },
  ga4: { reader: readGa4, layout: 'lines', extensions: JSON_LINES, timezone: 'utc', eventRenames: GA4_EVENT_RENAMES },
};

/** Users and groups files, by `<kind>-<format>`. */
export const RECORD_FORMATS: Readonly<Record<string, SourceFormat>> = {
  'users-csv': { reader: csvRecordReader(userMapper), layout: 'csv', extensions: ['.csv'], timezone: 'rows' },
  'users-jsonl': { reader: jsonlRecordReader(userMapper), layout: 'lines', extensions: JSON_LINES, timezone: 'rows' },
  'groups-csv': { reader: csvRecordReader(groupMapper), layout: 'csv', extensions: ['.csv'], timezone: 'rows' },
  'groups-jsonl': { reader: jsonlRecordReader(groupMapper), layout: 'lines', extensions: JSON_LINES, timezone: 'rows' },
};

/** Any format by its registered name (worker threads find theirs here). */
export function findFormat(name: string): SourceFormat | undefined {
  return SOURCE_FORMATS[name] ?? RECORD_FORMATS[name];
}

export function formatNames(): string[] {
  return Object.keys(SOURCE_FORMATS);
}
