/**
 * Reads what a staging file holds, for integration tests: the events exactly as they will be
 * sent (so a later import test can compare them with what the server stored) and the sources.
 */
import { uuidText } from '../../src/events/stable-uuid.js';
import { propertiesTextSql } from '../../src/staging/property-blocks.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { formatTimestamp } from '../../src/events/timestamp.js';

export interface StagedRow {
  uuid: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  properties: Record<string, unknown>;
  /** The source it came from (absolute path, `archive.zip!entry` for zip entries) and line; '' and 0 for rows derived after staging (identity links, group updates). */
  source: string;
  line: number;
}

export function readStagedEvents(staging: string): StagedRow[] {
  const store = StagingStore.open(staging, { mustExist: true });
  try {
    const rows = store.db
      .prepare(
        `SELECT e.uuid, e.event, e.distinct_id, e.timestamp_ms, e.sub_ms_us, ${propertiesTextSql('e.properties')} AS properties, s.path, e.line FROM events e
         LEFT JOIN source_reads r ON r.id = e.read_id LEFT JOIN sources s ON s.id = r.source_id ORDER BY e.seq`,
      )
      .all() as Array<{ uuid: Buffer; event: string; distinct_id: string; timestamp_ms: number; sub_ms_us: number; properties: string; path: string | null; line: number }>;
    return rows.map((row) => ({
      uuid: uuidText(row.uuid),
      event: row.event,
      distinct_id: row.distinct_id,
      timestamp: formatTimestamp(row.timestamp_ms, row.sub_ms_us),
      properties: JSON.parse(row.properties) as Record<string, unknown>,
      source: row.path ?? '',
      line: row.line,
    }));
  } finally {
    store.close();
  }
}

/**
 * A source's time text (`2025-09-01 02:00:48.149947`, with or without a zone written as UTC) as
 * staged: UTC to the microsecond, three fraction digits when the microseconds are 0.
 */
export function stagedTimeOf(text: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?/.exec(text)!;
  const digits = (match[3] ?? '').padEnd(6, '0').slice(0, 6);
  return `${match[1]}T${match[2]}.${digits.endsWith('000') ? digits.slice(0, 3) : digits}Z`;
}
