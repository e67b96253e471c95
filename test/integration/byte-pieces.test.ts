/**
 * UTF-8 JSON lines are cut from their bytes and decoded by the thread that reads each piece
 * (src/stage-sources/byte-pieces.ts). Read so, in-process or by worker threads, a file must
 * stage exactly what reading it as text stages: the same events and uuids, the same rejects
 * with their lines, fields, messages and raw text, and the same points recorded for resuming.
 * The stagings run the built modules (dist/, where the worker's file is).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { silentReporter } from '../../src/reporter.js';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { STAGED_PROPERTIES_TEXT } from '../helpers/staged-properties.js';

const { stageSources } = (await import(join(REPO_ROOT, 'dist', 'stage-sources', 'stage-sources.js'))) as typeof import('../../src/stage-sources/stage-sources.js');

const tempDir = useTempDir();
const MIB = 1024 * 1024;
/** Pieces of 64 KiB instead of 1 MiB: the ordinary lines before the long ones make several. */
const PIECE_BYTES = 64 * 1024;

/** A line both Mixpanel's reader and plain JSON lines read; `extra` is put inside the properties as written (bytes may be anything). */
function line(i: number, extra: Buffer | string = ''): Buffer {
  const head = `{"event":"e${i % 7}","timestamp":"2024-07-03T10:00:${String(i % 60).padStart(2, '0')}Z","properties":{"time":${1_720_000_000 + i},"distinct_id":"u${i % 500}","$insert_id":"i${i}","title":"Zürich 😀 ${i}"`;
  const tail = `,"n":${i}}}`;
  return Buffer.concat([Buffer.from(head), typeof extra === 'string' ? Buffer.from(extra) : extra, Buffer.from(tail)]);
}

const END = [Buffer.from('\n'), Buffer.from('\r\n'), Buffer.from('\r')];

/**
 * Every awkward thing a line may hold, between ordinary lines with every kind of line end (so
 * some `\r` fall last in a read chunk, and characters of several bytes across chunks): about
 * 600 KB cut from bytes (in pieces of PIECE_BYTES), then lines that may be too long, after which
 * the rest is read as text.
 */
function awkwardFile(): Buffer {
  const parts: Buffer[] = [Buffer.from([0xef, 0xbb, 0xbf])];
  const special = new Map<number, Buffer[]>([
    [10, [line(10, Buffer.from([0x2c, 0x22, 0x62, 0x22, 0x3a, 0x22, 0xff, 0x22]))]], // ,"b":"<0xff>"
    [20, [line(20, Buffer.from([0x2c, 0x22, 0x62, 0x22, 0x3a, 0x22, 0xe2, 0x82, 0x22]))]], // a character cut short
    [30, [line(30, Buffer.from([0x2c, 0x22, 0x62, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22]))]], // an encoded surrogate
    [40, [Buffer.from('   ')]],
    [50, [Buffer.from('')]],
    [60, [line(60, ',"x":"\\ud800"')]], // an escaped lone surrogate
    [70, [line(70).subarray(0, 40)]], // broken JSON
    [2_900, [line(2_900, `,"big":"${'x'.repeat(MIB + 10)}"`)]], // over 1 Mi characters: skipped unread
    [2_910, [line(2_910, `,"big":"${'é'.repeat(600_000)}"`)]], // over 1 MiB in fewer than 1 Mi characters: read, then too large
    [2_920, [line(2_920, `,"big":"${'y'.repeat(MIB - 400)}"`)]], // just under the bound, with its line end
    [2_930, [line(2_930, Buffer.concat([Buffer.from(',"big":"'), Buffer.alloc(MIB, 0x7a), Buffer.from([0xff]), Buffer.from('"')]))]], // long, and a bad byte
    [2_940, [Buffer.alloc(MIB - 1, 0x20)]], // spaces only, 1 MiB with its line end
  ]);
  for (let i = 1; i <= 3_000; i++) {
    parts.push(...(special.get(i) ?? [line(i, i % 97 === 0 ? ',"n2":12345678901234567890' : '')]));
    parts.push(END[i % 3]!);
  }
  parts.push(line(3_001)); // no line end
  return Buffer.concat(parts);
}

interface Staged {
  totals: unknown;
  events: unknown[];
  rejects: unknown[];
  progress: unknown[];
}

async function stage(dir: string, name: string, file: string, format: string, options: { workers: number; bytePieces: boolean }): Promise<Staged> {
  const staging = join(dir, `${name}.db`);
  const result = await stageSources(
    {
      files: [file],
      staging,
      command: 'export-source',
      format,
      readerOptions: { columns: {} },
      rules: { nowMs: Date.UTC(2026, 0, 1) },
      recordedOptions: { map: null, timezone: null, columns: {}, groups: [] },
      expandInputs: true,
      pieceChars: PIECE_BYTES,
      ...options,
    },
    silentReporter,
    new AbortController().signal,
  );
  return readStaging(staging, (db) => ({
    totals: result.totals,
    events: db.prepare(`SELECT hex(uuid) AS uuid, event, distinct_id, timestamp_ms, ${STAGED_PROPERTIES_TEXT} AS properties, line FROM events ORDER BY uuid`).all(),
    rejects: db.prepare('SELECT line, field, reason, message, raw FROM rejects ORDER BY line, reason').all(),
    progress: db.prepare('SELECT progress_chars, progress_line, progress_fingerprint, rows_read FROM source_reads').all(),
  }));
}

describe('JSON lines cut from their bytes', () => {
  it.each([
    ['mixpanel', 'a file'],
    ['jsonl', 'a gzip file'],
  ])(
    '%s, %s: in-process and on worker threads, staged as read as text',
    async (format, what) => {
      const dir = tempDir();
      const file = join(dir, what === 'a gzip file' ? 'events.jsonl.gz' : 'events.jsonl');
      const bytes = awkwardFile();
      writeFileSync(file, what === 'a gzip file' ? gzipSync(bytes) : bytes);
      const asText = await stage(dir, 'text', file, format, { workers: 0, bytePieces: false });
      const byBytes = await stage(dir, 'bytes', file, format, { workers: 0, bytePieces: true });
      const onWorkers = await stage(dir, 'workers', file, format, { workers: 2, bytePieces: true });
      expect(asText.totals).toMatchObject({ rowsRead: 2_998, rejectedByReason: { too_large: 3, invalid_utf8: 3, invalid_unicode: 1, bad_json: 1, event_too_large: 1 } });
      expect(asText.events.length).toBeGreaterThan(2_900);
      expect(byBytes).toEqual(asText);
      expect(onWorkers).toEqual(asText);
    },
    180_000,
  );
});
