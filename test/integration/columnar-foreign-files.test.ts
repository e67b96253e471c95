/**
 * `export-source --from parquet|avro|posthog` on files written by pyarrow and fastavro (the
 * tests' Python venv, test/helpers/python-env.ts), libraries no one here wrote: JSON columns,
 * `__proto__` keys, duplicate columns, page checksums, PostHog's Parquet batch exports.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportSource, rejectsOf, stagingIn } from '../helpers/export-source.js';
import { runPython } from '../helpers/python-env.js';
import { runCli } from '../helpers/run-cli.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

function stagedProperties(staging: string): Array<Record<string, unknown>> {
  return readStagedEvents(staging).map(({ properties: { $import_run: _r, $geoip_disable: _g, $import_source: _s, ...properties } }) => properties);
}

const JSON_COLUMN = `
import sys, pyarrow as pa, pyarrow.parquet as pq
n = int(sys.argv[2])
cells = []
for i in range(n):
    if i == 1: cells.append('1,"distinct_id":"someone-else"')
    elif i % 3 == 0: cells.append('{\\n "plan": "pro",\\n "n": %d\\n}' % i)
    elif i % 3 == 1: cells.append('[1,\\r\\n2]')
    else: cells.append('not json {')
t = pa.table({'event': ['e'] * n, 'distinct_id': ['u%d' % i for i in range(n)],
  'timestamp': pa.array([1700000000000 + i for i in range(n)], pa.timestamp('ms', tz='UTC')),
  'payload': pa.array(cells, pa.json_())})
pq.write_table(t, sys.argv[1])
`;

/** Every file the tests read, written before them by one Python process (a Python start and pyarrow's import cost about a second each). */
const WRITERS: Array<[string, string[]]> = [
  [
    `
import sys, pyarrow as pa, pyarrow.parquet as pq, fastavro
m = pa.array([[('__proto__', '{"x":1}'), ('\\x00__proto__', 'nul'), ('k', 'v')]], pa.map_(pa.string(), pa.string()))
s = pa.array([{'__proto__': {'a': 1}, 'b': '__proto__'}], pa.struct([('__proto__', pa.struct([('a', pa.int64())])), ('b', pa.string())]))
pq.write_table(pa.table({'event': ['e'], 'distinct_id': ['u'], 'timestamp': ['2024-01-01T00:00:00Z'], 'm': m, 's': s, '__proto__': ['top']}), sys.argv[1])
inner = {'type': 'record', 'name': 'Inner', 'fields': [{'name': '__proto__', 'type': 'string'}, {'name': 'b', 'type': 'long'}]}
schema = {'type': 'record', 'name': 'E', 'fields': [{'name': 'event', 'type': 'string'}, {'name': 'distinct_id', 'type': 'string'},
  {'name': 'timestamp', 'type': 'string'}, {'name': 'r', 'type': inner}, {'name': 'm', 'type': {'type': 'map', 'values': 'string'}}, {'name': '__proto__', 'type': 'string'}]}
with open(sys.argv[2], 'wb') as out:
    fastavro.writer(out, schema, [{'event': 'e', 'distinct_id': 'u', 'timestamp': '2024-01-01T00:00:00Z', 'r': {'__proto__': 'p', 'b': 2}, 'm': {'__proto__': 'q', '\\x00__proto__': 'nul'}, '__proto__': 'top'}])
`,
    ['proto.parquet', 'proto.avro'],
  ],
  [
    `
import sys, pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.Table.from_arrays([pa.array(['e']), pa.array(['u']), pa.array(['2024-01-01T00:00:00Z']), pa.array([1]), pa.array([2])], names=['event', 'distinct_id', 'timestamp', 'x', 'x']), sys.argv[1])
`,
    ['twice.parquet'],
  ],
  [
    `
import sys, pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({'uuid': ['0190e8a0-0000-7000-8000-000000000001'], 'event': ['$identify'], 'distinct_id': ['u1'],
  'timestamp': pa.array([1700000000000000], pa.timestamp('us', tz='UTC')), 'properties': ['{"$browser": "Firefox"}'],
  'set': ['{"plan": "pro", "seats": 3}'], 'set_once': ['{"first_seen": "2024-01-01"}']}), sys.argv[1])
`,
    ['export.parquet'],
  ],
  [
    `
import sys, pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({'event': ['e'] * 3, 'distinct_id': ['u'] * 3, 'timestamp': ['2024-01-01T00:00:00Z'] * 3, 'amount': pa.array([1099, 5, 7], pa.int64())}),
  sys.argv[1], compression='none', use_dictionary=False, write_page_checksum=True, write_statistics=False)
`,
    ['crc.parquet'],
  ],
  [
    `
import sys, pyarrow as pa, pyarrow.parquet as pq, fastavro
values = [0.1, 1.5, 3.4028234663852886e38, 1e-7, 16777217.0, -2.5e-3]
n = len(values)
f32 = pa.float32()
pq.write_table(pa.table({'event': ['e'] * n, 'distinct_id': ['u%d' % i for i in range(n)], 'timestamp': ['2024-01-01T00:00:00Z'] * n, 'f': pa.array(values, f32),
  'l': pa.array([[v, None, 2.5] for v in values], pa.list_(f32)),
  's': pa.array([{'x': v, 'd': v, 'deep': {'y': v}} for v in values], pa.struct([('x', f32), ('d', pa.float64()), ('deep', pa.struct([('y', f32)]))])),
  'm': pa.array([[('k', v)] for v in values], pa.map_(pa.string(), f32)),
  'ls': pa.array([[{'f': v}] for v in values], pa.list_(pa.struct([('f', f32)]))),
  'll': pa.array([[[v]] for v in values], pa.list_(pa.list_(f32)))}), sys.argv[1])
schema = {'type': 'record', 'name': 'E', 'fields': [{'name': 'event', 'type': 'string'}, {'name': 'distinct_id', 'type': 'string'}, {'name': 'timestamp', 'type': 'string'}, {'name': 'f', 'type': ['null', 'float']},
  {'name': 'l', 'type': {'type': 'array', 'items': ['null', 'float']}}, {'name': 's', 'type': {'type': 'record', 'name': 'S', 'fields': [{'name': 'x', 'type': 'float'}, {'name': 'd', 'type': 'double'}]}},
  {'name': 'm', 'type': {'type': 'map', 'values': 'float'}}, {'name': 'u', 'type': ['null', 'int', 'float']}]}
with open(sys.argv[2], 'wb') as out:
    fastavro.writer(out, schema, [{'event': 'e', 'distinct_id': 'v%d' % i, 'timestamp': '2024-01-01T00:00:00Z', 'f': v, 'l': [v, None, 2.5], 's': {'x': v, 'd': v}, 'm': {'k': v}, 'u': v} for i, v in enumerate(values)])
`,
    ['float.parquet', 'float.avro'],
  ],
  [
    `
import sys, pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({'event': ['e', 'e'], 'distinct_id': ['u1', 'u2'], 'timestamp': ['2024-01-01T00:00:00Z'] * 2, 'raw': pa.array([b'\\xff\\x00A', b'plain'], pa.binary())}), sys.argv[1])
`,
    ['bytes.parquet'],
  ],
  [JSON_COLUMN, ['json.parquet', '6']],
];
const FILES = mkdtempSync(join(tmpdir(), 'migrate-foreign-files-'));
const RUN_ALL = `
import json, sys
jobs, out = json.loads(sys.argv[1]), sys.argv[2]
for code, args in jobs:
    sys.argv = ['writer'] + [out + '/' + a if a.endswith(('.parquet', '.avro')) else a for a in args]
    exec(compile(code, 'writer', 'exec'), {'__name__': '__main__'})
`;
beforeAll(() => {
  runPython(RUN_ALL, [JSON.stringify(WRITERS), FILES]);
});
afterAll(() => rmSync(FILES, { recursive: true, force: true }));

describe('columnar files written by pyarrow and fastavro', () => {
  it('reads a JSON column as values: a pretty-printed cell stays one row, text that is not JSON a string, nothing spliced into the row', async () => {
    const target = stagingIn(tempDir());
    const file = join(FILES, 'json.parquet');
    const result = await exportSource(target, ['--from', 'parquet', file]);
    expect(result.totals).toMatchObject({ rowsRead: 6, staged: 6, rejected: 0 });
    const staged = readStagedEvents(target.staging);
    expect(staged.map((e) => [e.line, e.distinct_id])).toEqual([0, 1, 2, 3, 4, 5].map((i) => [i + 1, `u${i}`]));
    expect(staged.map((e) => e.properties.payload)).toEqual([{ plan: 'pro', n: 0 }, '1,"distinct_id":"someone-else"', 'not json {', { plan: 'pro', n: 3 }, [1, 2], 'not json {']);
  });

  it('keeps __proto__ as a property in Parquet maps and structs and in Avro records and maps', async () => {
    const target = stagingIn(tempDir());
    const parquet = join(FILES, 'proto.parquet');
    const avro = join(FILES, 'proto.avro');
    await exportSource(target, ['--from', 'parquet', parquet]);
    await exportSource(target, ['--from', 'avro', avro]);
    const [fromParquet, fromAvro] = stagedProperties(target.staging);
    // Written as text: an object literal's `__proto__:` would set its prototype.
    expect(JSON.stringify(fromParquet)).toBe('{"m":{"__proto__":"{\\"x\\":1}","\\u0000__proto__":"nul","k":"v"},"s":{"__proto__":{"a":1},"b":"__proto__"},"__proto__":"top"}');
    expect(JSON.stringify(fromAvro)).toBe('{"r":{"__proto__":"p","b":2},"m":{"__proto__":"q","\\u0000__proto__":"nul"},"__proto__":"top"}');
  });

  it('refuses a Parquet file with two columns of one name, naming the column', async () => {
    const target = stagingIn(tempDir());
    const file = join(FILES, 'twice.parquet');
    const result = await runCli(['export-source', '--staging', target.staging, '--from', 'parquet', file], { cwd: target.dir });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('two columns are named "x"');
  });

  it('reads a PostHog batch export in Parquet with set and set_once as JSON text into $set and $set_once', async () => {
    const target = stagingIn(tempDir());
    const file = join(FILES, 'export.parquet');
    const result = await exportSource(target, ['--from', 'posthog', file]);
    expect(result.totals).toMatchObject({ staged: 1, rejected: 0 });
    expect(stagedProperties(target.staging)[0]).toMatchObject({ $browser: 'Firefox', $set: { plan: 'pro', seats: 3 }, $set_once: { first_seen: '2024-01-01' } });
  });

  it('refuses a Parquet page whose bytes differ from its checksum, naming the column', async () => {
    const target = stagingIn(tempDir());
    const file = join(FILES, 'crc.parquet');
    const bytes = readFileSync(file);
    const value = Buffer.from(new BigInt64Array([1099n]).buffer);
    const at = bytes.indexOf(value);
    expect(bytes.indexOf(value, at + 1)).toBe(-1); // in the page only: no statistics hold it
    bytes.writeBigInt64LE(9999999n, at);
    writeFileSync(file, bytes);
    const result = await runCli(['export-source', '--staging', target.staging, '--from', 'parquet', file], { cwd: target.dir });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/column "amount": the page at byte \d+ does not match its checksum/);
    expect(readStagedEvents(target.staging)).toEqual([]);
  });

  it('stages a 32-bit float as the shortest numeral that reads back as the same float32, in Parquet and Avro, at any depth', async () => {
    const target = stagingIn(tempDir());
    const parquet = join(FILES, 'float.parquet');
    const avro = join(FILES, 'float.avro');
    await exportSource(target, ['--from', 'parquet', parquet]);
    await exportSource(target, ['--from', 'avro', avro]);
    // As pyarrow's to_pylist and fastavro show the values written; the doubles (d) as written.
    const floats = [0.1, 1.5, 3.4028235e38, 1e-7, 16777216, -0.0025];
    const doubles = [0.1, 1.5, 3.4028234663852886e38, 1e-7, 16777217, -0.0025];
    const staged = stagedProperties(target.staging);
    expect(staged.slice(0, 6)).toEqual(floats.map((f, i) => ({ f, l: [f, null, 2.5], s: { x: f, d: doubles[i], deep: { y: f } }, m: { k: f }, ls: [{ f }], ll: [[f]] })));
    expect(staged.slice(6)).toEqual(floats.map((f, i) => ({ f, l: [f, null, 2.5], s: { x: f, d: doubles[i] }, m: { k: f }, u: { float: f } })));
  });

  it('stages unannotated Parquet bytes that are not UTF-8 as base64, and those that are as text', async () => {
    const target = stagingIn(tempDir());
    const file = join(FILES, 'bytes.parquet');
    const result = await exportSource(target, ['--from', 'parquet', file]);
    expect(result.totals).toMatchObject({ staged: 2, rejected: 0 });
    expect(stagedProperties(target.staging).map((p) => p.raw)).toEqual(['/wBB', 'plain']);
  });
});
