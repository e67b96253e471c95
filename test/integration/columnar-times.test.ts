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

describe('Parquet times', () => {
  it('TIMESTAMP with a zone keeps microseconds; without one it is read in --timezone, and without --timezone rejected', async () => {
    const dir = tempDir();
    await writeParquet(
      join(dir, 'utc.parquet'),
      `SELECT 'utc_us' AS event, 'u' AS distinct_id, TIMESTAMPTZ '2024-03-01 10:00:00.123456+00' AS timestamp
       UNION ALL SELECT 'utc_ms', 'u', TIMESTAMPTZ '2024-03-01 10:00:00.123+00'`,
    );
    await writeParquet(
      join(dir, 'local.parquet'),
      `SELECT 'naive_us' AS event, 'u' AS distinct_id, TIMESTAMP '2024-03-01 10:00:00.123456' AS timestamp
       UNION ALL SELECT 'naive_ns', 'u', CAST(TIMESTAMP_NS '2024-03-01 10:00:00.123456789' AS TIMESTAMP_NS)`,
    );
    const target = stagingIn(dir);
    const staged = await runCli(['export-source', join(dir, 'utc.parquet'), join(dir, 'local.parquet'), '--from', 'parquet', '--staging', target.staging, '--timezone', 'America/New_York'], {
      cwd: dir,
    });
    expect(staged.code, staged.stderr).toBe(0);
    expect(Object.fromEntries(readStagedEvents(target.staging).map((e) => [e.event, e.timestamp]))).toEqual({
      utc_us: '2024-03-01T10:00:00.123456Z',
      utc_ms: '2024-03-01T10:00:00.123Z',
      naive_us: '2024-03-01T15:00:00.123456Z',
      naive_ns: '2024-03-01T15:00:00.123456Z',
    });

    const none = tempDir();
    await writeParquet(join(none, 'local.parquet'), `SELECT 'naive' AS event, 'u' AS distinct_id, TIMESTAMP '2024-03-01 10:00:00' AS timestamp`);
    const unzoned = stagingIn(none);
    const refused = await runCli(['export-source', join(none, 'local.parquet'), '--from', 'parquet', '--staging', unzoned.staging], { cwd: none });
    expect(refused.code).toBe(3);
    expect((await rejectsOf(unzoned)).map((r: { reason: string }) => r.reason)).toEqual(['timestamp_without_zone']);
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
  const files = (dir: string, cases: ReadonlyArray<readonly [string, bigint]>): string[] =>
    cases.map(([logicalType, value]) => {
      writeAvro(join(dir, `${logicalType}.avro`), avroSchema(logicalType), [{ event: logicalType, distinct_id: 'u', timestamp: value }]);
      return join(dir, `${logicalType}.avro`);
    });
  const stageAll = async (dir: string, paths: string[], extra: string[] = []) => {
    const target = stagingIn(dir);
    const result = await runCli(['export-source', ...paths, '--from', 'avro', '--staging', target.staging, ...extra], { cwd: dir });
    return { target, result, times: () => Object.fromEntries(readStagedEvents(target.staging).map((e) => [e.event, e.timestamp])) };
  };

  it('timestamp-millis, -micros and -nanos keep every digit to the microsecond (a nanosecond count beyond 2^53 too)', async () => {
    const dir = tempDir();
    const staged = await stageAll(
      dir,
      files(dir, [
        ['timestamp-micros', T * 1_000_000n + 123_456n],
        ['timestamp-nanos', T * 1_000_000_000n + 123_456_789n],
        ['timestamp-millis', T * 1000n + 123n],
      ]),
    );
    expect(staged.result.code, staged.result.stderr).toBe(0);
    expect(staged.times()).toEqual({
      'timestamp-micros': '2024-03-01T10:00:00.123456Z',
      'timestamp-nanos': '2024-03-01T10:00:00.123456Z',
      'timestamp-millis': '2024-03-01T10:00:00.123Z',
    });
  });

  it('local-timestamp-* is read in --timezone, and without one is rejected as a time without a zone', async () => {
    const cases = [
      ['local-timestamp-millis', T * 1000n + 123n],
      ['local-timestamp-micros', T * 1_000_000n + 123_456n],
      ['local-timestamp-nanos', T * 1_000_000_000n + 123_456_789n],
    ] as const;
    const dir = tempDir();
    const zoned = await stageAll(dir, files(dir, cases), ['--timezone', 'America/New_York']);
    expect(zoned.result.code, zoned.result.stderr).toBe(0);
    expect(zoned.times()).toEqual({
      'local-timestamp-millis': '2024-03-01T15:00:00.123Z',
      'local-timestamp-micros': '2024-03-01T15:00:00.123456Z',
      'local-timestamp-nanos': '2024-03-01T15:00:00.123456Z',
    });

    const other = tempDir();
    const unzoned = await stageAll(other, files(other, cases));
    expect(unzoned.result.code).toBe(3);
    expect((await rejectsOf(unzoned.target)).map((r: { reason: string }) => r.reason)).toEqual(['timestamp_without_zone', 'timestamp_without_zone', 'timestamp_without_zone']);
  });
});
