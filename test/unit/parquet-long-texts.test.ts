import { join } from 'node:path';
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openParquet } from '../../src/sources/columnar/parquet-file.js';
import { rowText } from '../../src/sources/columnar/row-text.js';
import { queryJson, writeParquet } from '../helpers/duckdb.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

/** Long texts (read a slice of rows at a time from inside their pages, parquet-slices.ts) beside short ones, nulls, lists and records of them. */
const LONG_TEXTS = `SELECT
  CASE WHEN i % 3 = 0 THEN NULL ELSE 'é🚀 long text ' || repeat('x', 60 + i) END AS long_text,
  'short' || i AS short_text,
  repeat('same long value ', 8) AS dictionary_text,
  ['a long text in a list ' || repeat('y', 70), NULL] AS list_texts,
  {'inner': 'a long text in a record ' || repeat('z', 70)} AS record,
  ('{"k": "' || repeat('j', 80 + i) || '"}')::JSON AS json_text,
  -- A TIMESTAMP without a zone: a wall-clock reading, written without a Z (local-times.ts).
  CASE WHEN i % 4 = 0 THEN NULL ELSE TIMESTAMP '2024-01-02 03:04:05.123457' + INTERVAL (i) SECOND END AS t_us
  FROM range(200) t(i)`;

describe('Parquet rows with long texts', () => {
  it('writes each row as DuckDB reads it', async () => {
    const path = join(tempDir(), 'long.parquet');
    await writeParquet(path, LONG_TEXTS);
    const file = await openParquet(path, 'long.parquet', statSync(path).size);
    let text = '';
    for await (const chunk of rowText(file, 0)) text += chunk;
    const rows = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const expected = await queryJson(`SELECT long_text, short_text, dictionary_text, list_texts, record, json_text::VARCHAR AS json_text,
        strftime(t_us, '%Y-%m-%dT%H:%M:%S.%f') AS t_us FROM '${path}'`);
    expect(rows.map((r) => ({ ...r, json_text: JSON.stringify(r.json_text) }))).toEqual(expected.map((r) => ({ ...r, json_text: JSON.stringify(JSON.parse(String(r.json_text))) })));
  });
});
