/**
 * The event JSON SQLite builds while reading pages must be the very text `eventJson` writes:
 * byte for byte, so a chunk re-sent after an upgrade is the same bytes as the first time.
 * The reference is computed from the columns as read back from the file, as reading pages did
 * before (a lone surrogate, for one, is stored as it came and read back as U+FFFD).
 */
import { isUtf8 } from 'node:buffer';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventJson, isoTimestamp, writeIsoTimestamp, type OutgoingEvent } from '../../src/delivery/event-encoding.js';
import { openDatabase, type Database } from '../../src/sqlite/database.js';
import { stagedJsonMaxBytes, writeStagedJson } from '../../src/delivery/staged-json.js';
import { selectEventJsonPage, selectEventJsonParts, STAGED_JSON_COLUMN } from '../../src/staging/event-json-sql.js';
import { uuidBytes, uuidText } from '../../src/events/stable-uuid.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { STAGED_PROPERTIES_TEXT } from '../helpers/staged-properties.js';
import { registerPropertyFunctions } from '../../src/staging/property-blocks.js';

type Row = Omit<OutgoingEvent, 'seq' | 'kind'>;

const UUID = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const T0 = Date.UTC(2024, 4, 1, 10, 20, 30, 456);
const MAX_DATE_MS = 8.64e15;
const row = (over: Partial<Row>): Row => ({ uuid: UUID, event: 'pageview', distinctId: 'user_1', timestampMs: T0, propertiesJson: '{"a":1}', ...over });
const allControls = Array.from({ length: 32 }, (_, c) => String.fromCharCode(c)).join('') + '\u007f';

function openEvents(dir: string): Database {
  const db = openDatabase(join(dir, 'events.db'));
  db.exec('CREATE TABLE events (seq INTEGER PRIMARY KEY, uuid BLOB, event TEXT, distinct_id TEXT, timestamp_ms INTEGER, properties, sub_ms_us INTEGER NOT NULL DEFAULT 0)');
  db.exec('CREATE TABLE property_blocks (id INTEGER PRIMARY KEY, data BLOB NOT NULL)');
  registerPropertyFunctions(db);
  return db;
}

/** Stores the rows (properties as text, or as JSONB), then reads them each way: by rows, as a page, and as eventJson writes them. */
function bothWays(db: Database, rows: readonly Row[], jsonb = false): Array<{ sql: string; page: string | undefined; js: string }> {
  db.exec('DELETE FROM events');
  const insert = db.prepare(`INSERT INTO events VALUES (?, ?, ?, ?, ?, ${jsonb ? 'jsonb(?)' : '?'}, ?)`);
  rows.forEach((r, i) => insert.run(i, uuidBytes(r.uuid), r.event, r.distinctId, r.timestampMs, r.propertiesJson, r.subMsUs ?? 0));
  const parts = db.prepare(selectEventJsonParts('SELECT * FROM events ORDER BY seq', ['seq', 'timestamp_ms', 'sub_ms_us'])).all() as Array<{
    timestamp_ms: number;
    sub_ms_us: number;
    head: string;
    tail: string;
  }>;
  // The chunk builder writes the timestamp's bytes between head and tail.
  const timestamp = Buffer.alloc(32);
  const sql = parts.map((p) => ({ json: p.head + timestamp.toString('latin1', 0, writeIsoTimestamp(timestamp, 0, p.timestamp_ms, p.sub_ms_us)) + p.tail }));
  const stored = db.prepare(`SELECT seq, uuid, event, distinct_id, timestamp_ms, sub_ms_us, ${STAGED_PROPERTIES_TEXT} AS properties FROM events ORDER BY seq`).all() as Array<{
    seq: number;
    uuid: Buffer;
    event: string;
    distinct_id: string;
    timestamp_ms: number;
    sub_ms_us: number;
    properties: string;
  }>;
  const pages = pageJson(db);
  return stored.map((s, i) => ({
    sql: sql[i]!.json,
    page: pages[i],
    js: eventJson({ seq: s.seq, kind: 0, uuid: uuidText(s.uuid), event: s.event, distinctId: s.distinct_id, timestampMs: s.timestamp_ms, subMsUs: s.sub_ms_us, propertiesJson: s.properties }),
  }));
}

/**
 * The events' JSON read the other way, one blob for the page, written by writeStagedJson: as
 * a string when the blob is UTF-8 (the reader reads other pages by rows), else undefined.
 */
function pageJson(db: Database): Array<string | undefined> {
  const rows = `SELECT seq, timestamp_ms, sub_ms_us, ${STAGED_JSON_COLUMN} FROM events ORDER BY seq LIMIT -1`;
  const { meta, json } = db.prepare(selectEventJsonPage(rows)).get() as { meta: string; json: Buffer };
  const numbers = JSON.parse(`[${meta}]`) as number[];
  const out: Array<string | undefined> = [];
  for (let i = 0, start = 0; i < numbers.length; i += 4) {
    const event = { seq: numbers[i]!, kind: 0, timestampMs: numbers[i + 1]!, subMsUs: numbers[i + 2]!, json, start, end: start + numbers[i + 3]! };
    const buffer = Buffer.alloc(stagedJsonMaxBytes(event));
    const bytes = buffer.subarray(0, writeStagedJson(buffer, 0, event));
    out.push(isUtf8(json.subarray(event.start, event.end)) ? bytes.toString('utf8') : undefined);
    start = event.end;
  }
  return out;
}

describe('event JSON built by SQLite', () => {
  const tempDir = useTempDir();

  it.each([
    ['plain', row({})],
    ['quotes and backslashes', row({ event: 'say "hi" \\ back\\slash', distinctId: '"\\"' })],
    ['every control character', row({ event: `a${allControls}b`, distinctId: allControls })],
    ['unicode', row({ event: 'café 中文 ü', distinctId: 'Ωmega' })],
    ['line and paragraph separators', row({ event: 'a\u2028b\u2029c', distinctId: '\u2028' })],
    ['emoji', row({ event: '🎉 launch', distinctId: '👩‍💻' })],
    ['lone surrogates', row({ event: 'x\ud800y', distinctId: '\udc00' })],
    ['slash and HTML', row({ event: '</script><!--', distinctId: 'a/b' })],
    ['empty distinct_id and name', row({ event: '', distinctId: '' })],
    ['uppercase-looking uuid bytes', row({ uuid: 'ffffffff-ffff-ffff-ffff-ffffffffffff' })],
    ['properties with escapes and numbers', row({ propertiesJson: '{"s":"\\u0000\\n\\"\\\\\u2028é😀","n":1e+21,"m":-0.5,"big":12345678901234567890,"x":[true,null,{}]}' })],
    ['the epoch', row({ timestampMs: 0 })],
    ['ms = 999', row({ timestampMs: Date.UTC(2024, 1, 29, 23, 59, 59, 999) })],
    ['ms = 0', row({ timestampMs: Date.UTC(2024, 1, 29, 23, 59, 59, 0) })],
    ['microseconds', row({ subMsUs: 456 })],
    ['one microsecond', row({ subMsUs: 1 })],
    ['999 microseconds on the last ms of a day', row({ timestampMs: Date.UTC(2024, 1, 29, 23, 59, 59, 999), subMsUs: 999 })],
    ['microseconds in year 10000', row({ timestampMs: Date.parse('9999-12-31T23:59:59.999Z') + 1, subMsUs: 7 })],
    ['1 ms before 1970', row({ timestampMs: -1 })],
    ['1969-12-31T00:00:00.000Z', row({ timestampMs: -86_400_000 })],
    ['just before a day before 1970', row({ timestampMs: -86_400_001 })],
    ['1900-03-01 (no leap day in 1900)', row({ timestampMs: Date.UTC(1900, 2, 1, 12) })],
    ['2000-02-29', row({ timestampMs: Date.UTC(2000, 1, 29, 1, 2, 3, 4) })],
    ['year 0000, first ms', row({ timestampMs: Date.parse('0000-01-01T00:00:00.000Z') })],
    ['year -1 (before 0000)', row({ timestampMs: Date.parse('0000-01-01T00:00:00.000Z') - 1 })],
    ['year 9999, last ms', row({ timestampMs: Date.parse('9999-12-31T23:59:59.999Z') })],
    ['year 10000', row({ timestampMs: Date.parse('9999-12-31T23:59:59.999Z') + 1 })],
    ['the last date JavaScript has', row({ timestampMs: MAX_DATE_MS })],
    ['the first date JavaScript has', row({ timestampMs: -MAX_DATE_MS })],
  ])('%s: the same bytes as eventJson', (_name, r) => {
    const db = openEvents(tempDir());
    for (const jsonb of [false, true]) {
      const [{ sql, page, js }] = bothWays(db, [r], jsonb) as [{ sql: string; page: string | undefined; js: string }];
      expect(sql).toBe(js);
      if (page !== undefined) expect(Buffer.from(page)).toEqual(Buffer.from(js));
      expect(Buffer.from(sql)).toEqual(Buffer.from(js));
      expect(JSON.parse(sql)).toEqual(JSON.parse(js));
    }
    db.close();
  });

  it('writes every timestamp as toISOString does (random times over the whole Date range)', () => {
    const db = openEvents(tempDir());
    const random = seededRandom(2026);
    const times = Array.from({ length: 3000 }, (_, i) => {
      const span = i % 3 === 0 ? MAX_DATE_MS : i % 3 === 1 ? 1e13 : 4e12; // everything, years 1653-2286, 1843-2096
      return Math.round((random() * 2 - 1) * span);
    });
    const results = bothWays(
      db,
      times.map((timestampMs) => row({ timestampMs })),
    );
    expect(results.filter((r) => r.sql !== r.js || r.page !== r.js)).toEqual([]);
    db.close();
  });
});

describe('isoTimestamp and writeIsoTimestamp', () => {
  it('write what toISOString writes, whatever day came before', () => {
    const random = seededRandom(7);
    const edges = [0, -1, 999, -86_400_000, -86_400_001, Date.parse('0000-01-01T00:00:00.000Z') - 1, Date.parse('9999-12-31T23:59:59.999Z') + 1, MAX_DATE_MS, -MAX_DATE_MS];
    const times = [...edges, ...Array.from({ length: 5000 }, (_, i) => Math.round((random() * 2 - 1) * (i % 2 ? 4e12 : MAX_DATE_MS)))];
    const buffer = Buffer.alloc(32);
    for (const ms of [...times, ...times.reverse()]) {
      const expected = new Date(ms).toISOString();
      expect(isoTimestamp(ms)).toBe(expected);
      expect(buffer.toString('latin1', 0, writeIsoTimestamp(buffer, 0, ms))).toBe(expected);
    }
  });
});
