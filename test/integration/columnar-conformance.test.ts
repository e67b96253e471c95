/**
 * Conformance with writers that are not ours: the same seeded random events written by pyarrow
 * (Parquet, several writer settings), fastavro (Avro, each codec it has), DuckDB (Parquet), and
 * Python's csv and json modules (test/helpers/conformance-files.py, one Python process), each
 * staged by the built CLI and compared with the JSON-lines file's events, event by event. The
 * events hold `__proto__`, `constructor`, dotted and empty keys, strings with line breaks and
 * NUL, 64-bit integers, nested values and times with zones.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/json/canonical-json.js';
import { parseStagedJson } from '../../src/json/read-json.js';
import { writeParquet } from '../helpers/duckdb.js';
import { exportSource, stagingIn } from '../helpers/export-source.js';
import { runPython } from '../helpers/python-env.js';
import { runCli } from '../helpers/run-cli.js';
import { STAGED_PROPERTIES_TEXT } from '../helpers/staged-properties.js';
import { readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const SCRIPT = fileURLToPath(new URL('../helpers/conformance-files.py', import.meta.url));
const EVENTS = 200;
/** Properties a run adds that name the run or the format, not the event. */
const RUN_KEYS = new Set(['$import_run', '$import_source', '$geoip_disable']);

/** Every codec fastavro writes; the Avro reader refuses the last three by name. */
const FASTAVRO_CODECS = ['null', 'deflate', 'snappy', 'zstandard', 'bzip2', 'xz', 'lz4'];
const REFUSED_CODEC = /fastavro-(bzip2|xz|lz4)/;

const FORMATS: Record<string, string> = { jsonl: 'jsonl', csv: 'csv', parquet: 'parquet', avro: 'avro' };

/** Each staged event as one comparable text: uuid, event, distinct id, time and properties (keys sorted, big integers exact). */
function stagedEvents(staging: string): string[] {
  const rows = readStaging(staging, (db) => db.prepare(`SELECT lower(hex(uuid)) AS uuid, event, distinct_id, timestamp_ms, ${STAGED_PROPERTIES_TEXT} AS p FROM events ORDER BY line`).all()) as Array<{
    uuid: string;
    event: string;
    distinct_id: string;
    timestamp_ms: number;
    p: string;
  }>;
  return rows.map((row) => {
    const properties = parseStagedJson(row.p) as Record<string, unknown>;
    for (const key of RUN_KEYS) delete properties[key];
    return canonicalJson({ uuid: row.uuid, event: row.event, distinct_id: row.distinct_id, timestamp_ms: row.timestamp_ms, properties });
  });
}

describe('conformance with writers that are not ours', () => {
  it('stages the same events from pyarrow, fastavro, DuckDB, csv and json files, and names the Avro codecs it does not read', async () => {
    const dir = tempDir();
    const files = runPython(`import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')`, [SCRIPT, dir, String(EVENTS), '20261206'])
      .trim()
      .split('\n');
    await writeParquet(join(dir, 'duckdb.parquet'), `SELECT * FROM read_parquet('${join(dir, 'pyarrow-plain.parquet')}')`, 'zstd', 2048);
    files.push('duckdb.parquet');

    const staged = new Map<string, string[]>();
    for (const file of files) {
      const format = FORMATS[file.split('.').at(-1)!]!;
      const target = stagingIn(dir);
      target.staging = join(dir, `${file}.db`);
      if (REFUSED_CODEC.test(file)) {
        const refused = await runCli(['export-source', '--staging', target.staging, '--from', format, join(dir, file)], { cwd: dir });
        expect(refused.code, file).not.toBe(0);
        expect(refused.stderr, file).toMatch(/uses the Avro codec "(bzip2|xz|lz4)", which is not read/);
        continue;
      }
      const result = await exportSource(target, ['--from', format, join(dir, file)]);
      expect(result.totals, file).toMatchObject({ rowsRead: EVENTS, staged: EVENTS, rejected: 0 });
      staged.set(file, stagedEvents(target.staging));
    }
    const expected = staged.get('events.jsonl')!;
    expect(expected).toHaveLength(EVENTS);
    for (const [file, events] of staged) for (let i = 0; i < EVENTS; i++) expect(events[i], `${file}, event ${i + 1}`).toBe(expected[i]);
    expect([...staged.keys()].sort()).toEqual(files.filter((f) => !REFUSED_CODEC.test(f)).sort());
    expect(files.filter((f) => f.startsWith('fastavro-')).sort()).toEqual(FASTAVRO_CODECS.map((codec) => `fastavro-${codec}.avro`).sort());
  });
});
