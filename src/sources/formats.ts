/** The source formats: `--from` of export-source, and the person and group file formats. */
import { readCsv } from './csv-source.js';
import { jsonlItems, readJsonl } from './jsonl-source.js';
import { groupMapper } from './people/group-record.js';
import { csvRecordReader, jsonlRecordItems, jsonlRecordReader } from './people/record-readers.js';
import { userMapper } from './people/user-record.js';
import { tableItems } from './columnar/table-rows.js';
import { jsonLinesReader } from './json-lines.js';
import { ANY_GZIP, NOT_READ } from './input-names.js';
import type { SourceFormat } from './source-item.js';
import { AMPLITUDE_EVENT_RENAMES, amplitudeItems, readAmplitude } from './vendors/amplitude.js';
import { GA4_EVENT_RENAMES, ga4JsonItems, readGa4 } from './vendors/ga4.js';
import { MIXPANEL_EVENT_RENAMES, mixpanelItems, readMixpanel } from './vendors/mixpanel.js';
import { mixpanelGroupProfiles, mixpanelUserProfiles } from './vendors/mixpanel-profiles.js';
import { posthogItems, readPostHog } from './vendors/posthog.js';
import { HEAP_EVENT_RENAMES, heapItems, readHeap } from './vendors/heap.js';
import { readSegment, segmentItems } from './vendors/segment.js';

const JSON_LINES = ['.jsonl', '.ndjson', '.json'] as const;
/** PostHog's batch exports name a Parquet file by its internal codec (`.parquet.zst`); `.parquet.gz` is read through its `.gz`. */
const PARQUET = ['.parquet', '.parquet.sz', '.parquet.zst', '.parquet.br', '.parquet.lz4'] as const;

/** Event sources, by the name `--from` takes. */
export const SOURCE_FORMATS: Readonly<Record<string, SourceFormat>> = {
  csv: { reader: readCsv, layout: 'csv', extensions: ['.csv'], timezone: 'rows' },
  jsonl: { reader: readJsonl, jsonItems: jsonlItems, layout: 'lines', extensions: JSON_LINES, timezone: 'rows' },
  mixpanel: { reader: readMixpanel, jsonItems: mixpanelItems, layout: 'lines', extensions: [...JSON_LINES, '.txt'], timezone: 'project', eventRenames: MIXPANEL_EVENT_RENAMES },
  amplitude: { reader: readAmplitude, jsonItems: amplitudeItems, layout: 'lines', extensions: JSON_LINES, timezone: 'utc', eventRenames: AMPLITUDE_EVENT_RENAMES },
  // A batch export's run manifest (`<start>-<end>_manifest.json`, the list of its files) holds no events.
  posthog: {
    reader: readPostHog,
    jsonItems: posthogItems,
    layout: 'lines',
    extensions: [...JSON_LINES, ...PARQUET, `${NOT_READ}_manifest.json`],
    timezone: 'utc',
    parquet: 'also',
    personsModel: true,
  },
  // Segment's archive names its files `<received-day>/<name>.gz`: any gzipped file is read.
  segment: { reader: readSegment, jsonItems: segmentItems, layout: 'lines', extensions: [...JSON_LINES, '.txt', ANY_GZIP], timezone: 'rows' },
  ga4: { reader: readGa4, jsonItems: ga4JsonItems, layout: 'lines', extensions: JSON_LINES, timezone: 'utc', eventRenames: GA4_EVENT_RENAMES },
  parquet: { reader: jsonLinesReader(tableItems), jsonItems: tableItems, layout: 'lines', extensions: PARQUET, timezone: 'rows', parquet: 'only' },
  avro: { reader: jsonLinesReader(tableItems), jsonItems: tableItems, layout: 'lines', extensions: ['.avro'], timezone: 'rows', avro: 'only' },
  // Heap Connect: the files of a folder's complete dumps, as its manifests list them (stage-sources/heap-folder.ts).
  heap: { reader: readHeap, jsonItems: heapItems, layout: 'lines', extensions: ['.avro'], timezone: 'utc', avro: 'only', eventRenames: HEAP_EVENT_RENAMES },
};

/** Users and groups files, by `<kind>-<format>`. */
export const RECORD_FORMATS: Readonly<Record<string, SourceFormat>> = {
  'users-csv': { reader: csvRecordReader(userMapper), layout: 'csv', extensions: ['.csv'], timezone: 'rows' },
  'users-jsonl': { reader: jsonlRecordReader(userMapper), jsonItems: jsonlRecordItems(userMapper), layout: 'lines', extensions: JSON_LINES, timezone: 'rows' },
  'groups-csv': { reader: csvRecordReader(groupMapper), layout: 'csv', extensions: ['.csv'], timezone: 'rows' },
  'groups-jsonl': { reader: jsonlRecordReader(groupMapper), jsonItems: jsonlRecordItems(groupMapper), layout: 'lines', extensions: JSON_LINES, timezone: 'rows' },
  'users-mixpanel-profiles': { reader: jsonlRecordReader(mixpanelUserProfiles), jsonItems: jsonlRecordItems(mixpanelUserProfiles), layout: 'lines', extensions: JSON_LINES, timezone: 'rows' },
  'groups-mixpanel-profiles': { reader: jsonlRecordReader(mixpanelGroupProfiles), jsonItems: jsonlRecordItems(mixpanelGroupProfiles), layout: 'lines', extensions: JSON_LINES, timezone: 'rows' },
};

/** Any format by its registered name (worker threads find theirs here). */
export function findFormat(name: string): SourceFormat | undefined {
  return Object.hasOwn(SOURCE_FORMATS, name) ? SOURCE_FORMATS[name] : Object.hasOwn(RECORD_FORMATS, name) ? RECORD_FORMATS[name] : undefined;
}

export function formatNames(): string[] {
  return Object.keys(SOURCE_FORMATS);
}
