/**
 * `export-source --from parquet` (and `--from posthog` on Parquet) on files DuckDB wrote: every
 * codec, the types that lose precision when read carelessly, rejects naming their row group,
 * stage then import into the sandbox with every value compared with DuckDB's own reading.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeZip } from '../../scripts/zip-writer.mjs';
import { exportSource, rejectsOf, stagingIn } from '../helpers/export-source.js';
import { PARQUET_CODECS, queryJson, writeParquet } from '../helpers/duckdb.js';
import { runCli } from '../helpers/run-cli.js';
import { asIngested, storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { FAST, readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { STAGED_PROPERTIES_TEXT, STAGED_PROPERTIES } from '../helpers/staged-properties.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();

/** Every type the reader must keep exact, 50 rows; `properties` holds JSON text. */
const TYPED = `SELECT 'ev' || (i % 3) AS event, 'user_' || (i % 7) AS distinct_id,
  TIMESTAMPTZ '2024-03-01 10:00:00.123+00' + INTERVAL (i) MINUTE AS timestamp,
  9007199254740993::BIGINT + i AS big, 18446744073709551615::UBIGINT AS ubig,
  (12345 + i)::DECIMAL(10,2) / 100 AS dec, 12345678901234567890.125::DECIMAL(38,3) AS dec38,
  [i, i + 1, NULL] AS list, {'a': i, 'b': 'x' || i, 'c': [1.5]} AS record, MAP {'k1': i, 'k2': 2} AS map,
  TIMESTAMP_MS '2024-01-02 03:04:05.123' AS t_ms, TIMESTAMP '2024-01-02 03:04:05.123457' AS t_us,
  TIMESTAMP_NS '2024-01-02 03:04:05.123456789' AS t_ns, DATE '2024-05-06' + i::INTEGER AS day, i / 4 AS float,
  i % 2 = 0 AS flag, NULL::VARCHAR AS nothing, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID AS id,
  '{"plan": "pro", "seats": ' || i || '}' AS properties
  FROM range(50) t(i)`;

/** Columns whose exact text the staged properties must hold, as DuckDB writes them (VARCHAR). */
const EXACT = `SELECT big::VARCHAR AS big, ubig::VARCHAR AS ubig, dec::VARCHAR AS dec, dec38::VARCHAR AS dec38,
  strftime(t_ms, '%Y-%m-%dT%H:%M:%S.%gZ') AS t_ms, strftime(t_us, '%Y-%m-%dT%H:%M:%S.%fZ') AS t_us, t_ns::VARCHAR AS t_ns FROM `;

describe('export-source --from parquet', () => {
  it('reads a file written with each codec as the same events', async () => {
    const dir = tempDir();
    const stagings = [];
    for (const codec of PARQUET_CODECS) {
      const file = join(dir, `${codec}.parquet`);
      await writeParquet(
        file,
        `SELECT 'ev' AS event, 'u' || (i % 5) AS distinct_id, TIMESTAMPTZ '2024-01-01 00:00:00+00' + INTERVAL (i) SECOND AS timestamp, 'note ' || i AS note FROM range(300) t(i)`,
        codec,
      );
      const target = { dir, staging: join(dir, `${codec}.db`) };
      const result = await exportSource(target, ['--from', 'parquet', file]);
      expect(result.totals).toMatchObject({ rowsRead: 300, staged: 300, rejected: 0 });
      // Each staging file has its own $import_run.
      stagings.push(readStagedEvents(target.staging).map(({ source: _s, properties: { $import_run: _r, ...properties }, ...event }) => ({ ...event, properties })));
    }
    for (const staged of stagings.slice(1)) expect(staged).toEqual(stagings[0]);
  });

  it('stages every type exactly, and the sandbox stores every value as DuckDB reads it', async () => {
    const sandbox = await sandboxAt();
    const target = stagingIn(tempDir());
    const file = join(target.dir, 'typed.parquet');
    await writeParquet(file, TYPED, 'snappy');
    const result = await exportSource(target, ['--from', 'parquet', file]);
    expect(result.totals).toMatchObject({ rowsRead: 50, staged: 50, rejected: 0 });
    const config = writeSandboxConfig(target.dir, sandbox);
    const imported = await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir });
    expect(imported.code, imported.stderr).toBe(0);

    const source = await queryJson(
      `SELECT * EXCLUDE (timestamp, big, ubig, dec, dec38, t_ms, t_us, t_ns, nothing, properties), epoch_ms(timestamp) AS ms, properties AS props FROM read_parquet('${file}')`,
    );
    const exact = await queryJson(`${EXACT} read_parquet('${file}')`);
    const stored = storedEvents(sandbox, 1);
    const staged = readStagedEvents(target.staging);
    const stagedText = readStaging(target.staging, (db) =>
      db
        .prepare(`SELECT ${STAGED_PROPERTIES_TEXT} AS p FROM events ORDER BY line`)
        .all()
        .map((r) => (r as { p: string }).p),
    );
    expect(stored).toHaveLength(50);
    for (const [i, row] of source.entries()) {
      const event = staged.find((e) => e.line === i + 1)!;
      const copy = stored.find((e) => e.uuid === event.uuid)!;
      expect({ event: copy.event, distinct_id: copy.distinct_id, timestamp: copy.timestamp }).toEqual({
        event: row.event,
        distinct_id: row.distinct_id,
        timestamp: new Date(row.ms as number).toISOString(),
      });
      const { event: _e, distinct_id: _d, ms: _m, props, ...columns } = row;
      expect(event.properties).toMatchObject({ ...columns, ...JSON.parse(props as string) });
      expect(event.properties).not.toHaveProperty('nothing');
      expect(JSON.parse(copy.properties)).toEqual(asIngested(event.properties));
      // The staged text as sent: 64-bit integers with every digit, decimals as PostHog reads their numerals.
      const numbers = exact[i]!;
      const text = stagedText[i]!;
      for (const key of ['big', 'ubig']) expect(text).toContain(`"${key}":${numbers[key]}`);
      for (const key of ['dec', 'dec38']) expect(text).toContain(`"${key}":${String(Number(numbers[key]))}`);
      // TIMESTAMP without time zone (isAdjustedToUTC=false): the wall-clock reading, without a zone.
      expect(text).toContain(`"t_ms":"${String(numbers.t_ms).replace(/Z$/, '')}"`);
      expect(text).toContain(`"t_us":"${String(numbers.t_us).replace(/Z$/, '')}"`);
      expect(text).toContain(`"t_ns":"${String(numbers.t_ns).replace(' ', 'T')}"`);
    }
  });

  it('rejects rows that lack an event, naming the row group and the row, and stages unannotated bytes that are not UTF-8 as base64', async () => {
    const target = stagingIn(tempDir());
    const file = join(target.dir, 'bad.parquet');
    await writeParquet(
      file,
      `SELECT CASE WHEN i = 2999 THEN NULL ELSE 'ev' END AS event, 'u' AS distinct_id, TIMESTAMPTZ '2024-01-01 00:00:00+00' AS timestamp, i AS n,
      CASE WHEN i IN (9, 4099) THEN '\\xFF\\x41'::BLOB ELSE 'ok'::BLOB END AS raw FROM range(5000) t(i)`,
    );
    const result = await exportSource(target, ['--from', 'parquet', file]);
    expect(result.totals).toMatchObject({ rowsRead: 5000, staged: 4999, rejected: 1 });
    const rejects = await rejectsOf(target);
    expect(rejects.map((r) => [r.line, r.reason, r.field])).toEqual([[3000, 'missing_event', 'event']]);
    expect(rejects[0]!.message).toContain('(row group 2 of 3, row 952 of it)');
    const raw = readStagedEvents(target.staging).filter((e) => e.line === 10 || e.line === 4100 || e.line === 11);
    expect(raw.map((e) => [e.line, e.properties.raw])).toEqual([
      [10, '/0E='],
      [11, 'ok'],
      [4100, '/0E='],
    ]);
  });

  it('refuses a Parquet file under a text format or in a zip, and a text file under --from parquet', async () => {
    const target = stagingIn(tempDir());
    const file = join(target.dir, 'events.parquet');
    await writeParquet(file, `SELECT 'ev' AS event, 'u' AS distinct_id, TIMESTAMPTZ '2024-01-01 00:00:00+00' AS timestamp`);
    writeFileSync(join(target.dir, 'events.csv'), 'event,distinct_id,timestamp\nev,u,2024-01-01T00:00:00Z\n');
    const asCsv = await runCli(['export-source', '--from', 'csv', file, '--staging', target.staging], { cwd: target.dir });
    expect(asCsv.code).toBe(3);
    expect(asCsv.stderr).toContain('is a Parquet file, which this format does not read');
    const asParquet = await runCli(['export-source', '--from', 'parquet', join(target.dir, 'events.csv'), '--staging', target.staging], { cwd: target.dir });
    expect(asParquet.code).toBe(3);
    expect(asParquet.stderr).toContain('is not a Parquet file');
    writeFileSync(join(target.dir, 'events.zip'), makeZip([{ name: 'events.parquet', data: readFileSync(file), method: 'deflate' }]));
    const zipped = await runCli(['export-source', '--from', 'parquet', join(target.dir, 'events.zip'), '--staging', target.staging], { cwd: target.dir });
    expect(zipped.code).toBe(3);
    expect(zipped.stderr).toContain('is a Parquet file, which is read only as a file on disk');
  });
});

/** Every staged event with its line, and every reject, in staging order, without the run's own id. */
function contents(staging: string) {
  return readStaging(staging, (db) => ({
    events: db.prepare(`SELECT hex(uuid) AS uuid, line, event, timestamp_ms AS ts, json_remove(${STAGED_PROPERTIES_TEXT}, '$."$import_run"') AS p FROM events ORDER BY seq`).all(),
    rejects: db.prepare('SELECT line, field, reason, message FROM rejects ORDER BY line').all(),
  }));
}

/** Pieces of 256 Ki characters instead of 1 Mi (a test hook, see stage-run.ts): files a few times that size hold several. */
const PIECES = { MIGRATE_TEST_PIECE_CHARS: String(256 * 1024) };

describe('a Parquet file staged part-way, killed, then staged again', () => {
  // The last: a file of 1 MiB or more (its notes are digests, which do not compress), decoded on a thread of its own.
  const DIGESTS = `${['a', 'b', 'c', 'd', 'e', 'f'].map((salt) => `md5('${salt}' || i)`).join(' || ')} || ' ' || i`;
  // In-process: pieces of 64 Ki characters (about 345 rows), killed after seven, past the first row group.
  const SMALL_PIECES = { MIGRATE_TEST_PIECE_CHARS: String(64 * 1024) };
  it.each([
    ['in-process', '0', `repeat('n', 120) || ' ' || i`, 0, 3000, SMALL_PIECES, '7'],
    // Pieces read ahead on a thread share a commit until it holds 4,096 rows (piece-pool.ts): the file goes on past it.
    ['on a worker thread', '1', `repeat('n', 120) || ' ' || i`, 0, 8000, PIECES, '3'],
    ['from a file decoded on its own thread', '1', DIGESTS, 1024 * 1024, 14000, PIECES, '3'],
  ])('resumes %s at the row its last piece ended on, every row once', async (name, workers, note, atLeastBytes, rows, pieces, killAfter) => {
    const dir = tempDir();
    const file = join(dir, 'big.parquet');
    // About 190 characters a row: five pieces or more; every 2,501st row has no event (rejected).
    await writeParquet(
      file,
      `SELECT CASE WHEN i % 2501 = 5 THEN NULL ELSE 'ev' || (i % 5) END AS event, 'user_' || (i % 997) AS distinct_id,
      TIMESTAMPTZ '2024-01-01 00:00:00+00' + INTERVAL (i) MINUTE AS timestamp, ${note} AS note FROM range(${rows}) t(i)`,
    );
    const rejected = Math.ceil((rows - 5) / 2501);
    expect(readFileSync(file).length).toBeGreaterThanOrEqual(atLeastBytes);
    const stage = (staging: string, env: Record<string, string> = {}, ownProcess = false) =>
      runCli(['export-source', '--from', 'parquet', file, '--workers', workers, '--json', '--staging', join(dir, staging)], { cwd: dir, env: { ...pieces, ...env }, ownProcess });
    // Past the first row group. The file decoded on its own thread is killed for real, in a process of its own (the others by the hook's in-process stand-in).
    const killed = await stage('m.db', { MIGRATE_TEST_KILL_AFTER_PIECES: killAfter }, name === 'from a file decoded on its own thread');
    expect(killed.signal).toBe('SIGKILL');
    const partial = JSON.parse((await runCli(['status', '--json', '--staging', join(dir, 'm.db')], { cwd: dir })).stdout);
    expect(partial.sources).toMatchObject([{ status: 'partial' }]);
    const line = partial.sources[0].progressLine as number;
    expect(line).toBeGreaterThan(2048); // past the first row group
    const resumed = await stage('m.db');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).files[0].resumedAtLine).toBe(line);
    const whole = await stage('whole.db');
    expect(JSON.parse(whole.stdout).totals).toMatchObject({ rowsRead: rows, staged: rows - rejected, rejected });
    expect(JSON.parse(resumed.stdout).totals).toEqual(JSON.parse(whole.stdout).totals);
    expect(contents(join(dir, 'm.db'))).toEqual(contents(join(dir, 'whole.db')));
  });
});

describe('a Parquet file changed after its read was interrupted', () => {
  const ROWS_CHANGED = 1200;
  it('is known by its footer and staged again from the start', async () => {
    const dir = tempDir();
    const file = join(dir, 'big.parquet');
    const rows = (label: string) => `SELECT 'ev' AS event, 'user_' || (i % 997) AS distinct_id, TIMESTAMPTZ '2024-01-01 00:00:00+00' + INTERVAL (i) MINUTE AS timestamp,
      repeat('${label}', 120) || ' ' || i AS note FROM range(${ROWS_CHANGED}) t(i)`;
    await writeParquet(file, rows('a'));
    // Pieces of 64 Ki characters: 1,200 rows of about 190 characters make several.
    const stage = (env: Record<string, string> = {}) =>
      runCli(['export-source', '--from', 'parquet', file, '--workers', '0', '--staging', join(dir, 'm.db')], { cwd: dir, env: { MIGRATE_TEST_PIECE_CHARS: String(64 * 1024), ...env } });
    expect((await stage({ MIGRATE_TEST_KILL_AFTER_PIECES: '1' })).signal).toBe('SIGKILL');
    await writeParquet(file, rows('b'));
    const again = await stage();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout + again.stderr).toContain('changed since its interrupted read');
    const notes = readStaging(join(dir, 'm.db'), (db) => db.prepare(`SELECT count(*) AS n FROM events WHERE json_extract(${STAGED_PROPERTIES}, '$.note') LIKE 'bbb%'`).get()) as { n: number };
    expect(notes.n).toBe(ROWS_CHANGED);
  });
});

describe('export-source --from posthog on a Parquet batch export', () => {
  it('keeps uuids, reads properties from JSON text, keeps elements_chain and leaves person state out', async () => {
    const target = stagingIn(tempDir());
    // PostHog names the file by its codec: plain Parquet inside, not a compressed file.
    const file = join(target.dir, 'export_2024-01-01T00:00:00.parquet.zst');
    await writeParquet(
      file,
      `SELECT uuid() AS uuid, CASE WHEN i % 10 = 0 THEN '$autocapture' ELSE '$pageview' END AS event,
      '{"$current_url": "https://example.com/' || i || '", "n": ' || i || '}' AS properties, 'user_' || (i % 9) AS distinct_id, 2 AS team_id,
      TIMESTAMPTZ '2024-01-01 00:00:00.250+00' + INTERVAL (i) SECOND AS timestamp, TIMESTAMPTZ '2024-01-02 00:00:00+00' AS created_at,
      CASE WHEN i % 10 = 0 THEN 'button.btn:nth-child="1"' ELSE '' END AS elements_chain, uuid()::VARCHAR AS person_id,
      '{"email": "x@example.com"}' AS person_properties, TIMESTAMPTZ '2024-01-02 00:00:00+00' AS _inserted_at FROM range(100) t(i)`,
    );
    const result = await exportSource(target, ['--from', 'posthog', target.dir]);
    expect(result.totals).toMatchObject({ rowsRead: 100, staged: 100, rejected: 0 });
    const source = await queryJson(`SELECT uuid::VARCHAR AS uuid, event, properties, distinct_id, epoch_ms(timestamp) AS ms, elements_chain FROM read_parquet('${file}')`);
    const staged = new Map(readStagedEvents(target.staging).map((e) => [e.uuid, e]));
    expect(source).toHaveLength(100);
    for (const row of source) {
      const event = staged.get(row.uuid as string)!;
      expect({ event: event.event, distinct_id: event.distinct_id, timestamp: event.timestamp }).toEqual({
        event: row.event,
        distinct_id: row.distinct_id,
        timestamp: new Date(row.ms as number).toISOString(),
      });
      expect(event.properties).toMatchObject(JSON.parse(row.properties as string));
      if (row.elements_chain !== '') expect(event.properties.$elements_chain).toBe(row.elements_chain);
      for (const dropped of ['person_id', 'person_properties', 'team_id', 'created_at', '_inserted_at']) expect(event.properties).not.toHaveProperty(dropped);
    }
  });

  it('reads JSON lines gzipped one member per line next to Parquet, and never reads the run manifest as events', async () => {
    const target = stagingIn(tempDir());
    const lines = Array.from(
      { length: 20 },
      (_, i) => JSON.stringify({ uuid: `0190a000-0000-7000-8000-${String(i).padStart(12, '0')}`, event: 'ev', distinct_id: `u${i}`, timestamp: '2024-01-01T00:00:00Z', properties: { i } }) + '\n',
    );
    // As batch exports write JSON lines with gzip: each line compressed on its own, the members concatenated.
    writeFileSync(join(target.dir, '2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00-0.jsonl.gz'), Buffer.concat(lines.map((line) => gzipSync(line))));
    await writeParquet(
      join(target.dir, '2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00-1.parquet.sz'),
      `SELECT uuid() AS uuid, 'ev' AS event, '{}' AS properties, 'p' || i AS distinct_id, TIMESTAMPTZ '2024-01-01 00:00:00+00' AS timestamp FROM range(5) t(i)`,
      'snappy',
    );
    writeFileSync(
      join(target.dir, '2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00_manifest.json'),
      JSON.stringify({ files: ['exports/2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00-0.jsonl.gz', 'exports/2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00-1.parquet.sz'] }),
    );
    const result = await exportSource(target, ['--from', 'posthog', target.dir]);
    expect(result.files).toHaveLength(2);
    expect(result.totals).toMatchObject({ rowsRead: 25, staged: 25, rejected: 0 });
    const staged = readStagedEvents(target.staging);
    expect(staged.filter((e) => e.distinct_id.startsWith('u')).map((e) => e.properties.i)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });
});
