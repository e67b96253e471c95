/**
 * Times in Parquet and Avro files to the microsecond, through the built CLI: TIMESTAMP MICROS
 * and NANOS, Avro timestamp-micros and timestamp-nanos keep their microseconds (nanoseconds are
 * dropped); times without a zone (Parquet isAdjustedToUTC=false, Avro local-timestamp-*) are read
 * in --timezone, and without one are rejected as times without a zone, never taken as UTC.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeAvro, type AvroSchema } from '../helpers/avro-writer.js';
import { writeParquet } from '../helpers/duckdb.js';
import { rejectsOf, stagingIn } from '../helpers/export-source.js';
import { runCli } from '../helpers/run-cli.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

async function stage(dir: string, file: string, format: string, extra: string[] = []) {
  const target = stagingIn(dir);
  const result = await runCli(['export-source', join(dir, file), '--from', format, '--staging', target.staging, ...extra], { cwd: dir });
  return { target, result, times: () => new Map(readStagedEvents(target.staging).map((e) => [e.event, e.timestamp])) };
}

describe('Parquet times', () => {
  it('TIMESTAMP with a zone keeps microseconds; without one it is read in --timezone', async () => {
    const dir = tempDir();
    await writeParquet(
      join(dir, 'utc.parquet'),
      `SELECT 'utc_us' AS event, 'u' AS distinct_id, TIMESTAMPTZ '2024-03-01 10:00:00.123456+00' AS timestamp
       UNION ALL SELECT 'utc_ms', 'u', TIMESTAMPTZ '2024-03-01 10:00:00.123+00'`,
    );
    const utc = await stage(dir, 'utc.parquet', 'parquet');
    expect(utc.result.code, utc.result.stderr).toBe(0);
    expect(Object.fromEntries(utc.times())).toEqual({ utc_us: '2024-03-01T10:00:00.123456Z', utc_ms: '2024-03-01T10:00:00.123Z' });

    const local = tempDir();
    await writeParquet(
      join(local, 'local.parquet'),
      `SELECT 'naive_us' AS event, 'u' AS distinct_id, TIMESTAMP '2024-03-01 10:00:00.123456' AS timestamp
       UNION ALL SELECT 'naive_ns', 'u', CAST(TIMESTAMP_NS '2024-03-01 10:00:00.123456789' AS TIMESTAMP_NS)`,
    );
    const zoned = await stage(local, 'local.parquet', 'parquet', ['--timezone', 'America/New_York']);
    expect(zoned.result.code, zoned.result.stderr).toBe(0);
    expect(Object.fromEntries(zoned.times())).toEqual({ naive_us: '2024-03-01T15:00:00.123456Z', naive_ns: '2024-03-01T15:00:00.123456Z' });

    const none = tempDir();
    await writeParquet(join(none, 'local.parquet'), `SELECT 'naive' AS event, 'u' AS distinct_id, TIMESTAMP '2024-03-01 10:00:00' AS timestamp`);
    const unzoned = await stage(none, 'local.parquet', 'parquet');
    expect(unzoned.result.code).toBe(3);
    expect((await rejectsOf(unzoned.target)).map((r: { reason: string }) => r.reason)).toEqual(['timestamp_without_zone']);
  });
});

const avroSchema = (logicalType: string): AvroSchema => ({
  type: 'record',
  name: 'e',
  fields: [
    { name: 'event', type: 'string' },
    { name: 'distinct_id', type: 'string' },
    { name: 'timestamp', type: { type: 'long', logicalType } },
  ],
});

describe('Avro times', () => {
  const T = 1709287200n; // 2024-03-01T10:00:00Z in seconds

  it.each([
    ['timestamp-micros', T * 1_000_000n + 123_456n, '2024-03-01T10:00:00.123456Z'],
    ['timestamp-nanos', T * 1_000_000_000n + 123_456_789n, '2024-03-01T10:00:00.123456Z'],
    ['timestamp-millis', T * 1000n + 123n, '2024-03-01T10:00:00.123Z'],
  ])('%s keeps every digit to the microsecond', async (logicalType, value, expected) => {
    const dir = tempDir();
    writeAvro(join(dir, 'e.avro'), avroSchema(logicalType), [{ event: 'a', distinct_id: 'u', timestamp: value }]);
    const staged = await stage(dir, 'e.avro', 'avro');
    expect(staged.result.code, staged.result.stderr).toBe(0);
    expect(staged.times().get('a')).toBe(expected);
  });

  it.each([
    ['local-timestamp-millis', T * 1000n + 123n, '2024-03-01T15:00:00.123Z'],
    ['local-timestamp-micros', T * 1_000_000n + 123_456n, '2024-03-01T15:00:00.123456Z'],
    ['local-timestamp-nanos', T * 1_000_000_000n + 123_456_789n, '2024-03-01T15:00:00.123456Z'],
  ])('%s is read in --timezone, and without one is rejected as a time without a zone', async (logicalType, value, expected) => {
    const dir = tempDir();
    writeAvro(join(dir, 'e.avro'), avroSchema(logicalType), [{ event: 'a', distinct_id: 'u', timestamp: value }]);
    const zoned = await stage(dir, 'e.avro', 'avro', ['--timezone', 'America/New_York']);
    expect(zoned.result.code, zoned.result.stderr).toBe(0);
    expect(zoned.times().get('a')).toBe(expected);

    const other = tempDir();
    writeAvro(join(other, 'e.avro'), avroSchema(logicalType), [{ event: 'a', distinct_id: 'u', timestamp: value }]);
    const unzoned = await stage(other, 'e.avro', 'avro');
    expect(unzoned.result.code).toBe(3);
    expect((await rejectsOf(unzoned.target)).map((r: { reason: string }) => r.reason)).toEqual(['timestamp_without_zone']);
  });
});
