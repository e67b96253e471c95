/**
 * `export-source --from posthog` on fixtures/posthog (batch-export JSON lines, one file plain,
 * one gzipped), and inputs common to every format: quoted globs and zip archives of CSV.
 * Import into the local server is the next step once `migrate import` lands: each test keeps
 * its staging file in `target`, ready for it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { makeZip } from '../../scripts/zip-writer.mjs';
import { exportSource, rejectsOf, stagingIn } from '../helpers/export-source.js';
import { FIXTURES, runCli } from '../helpers/run-cli.js';
import { readStagedEvents, stagedTimeOf } from '../helpers/staged-events.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const DIR = join(FIXTURES, 'posthog');
const FIRST = join(DIR, 'events-2025-09-01_2025-09-14.jsonl');
const SECOND = join(DIR, 'events-2025-09-15_2025-09-24.jsonl.gz');

function records(file: string): Array<Record<string, unknown>> {
  const bytes = readFileSync(file);
  const text = file.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
  return text.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
}

describe('export-source --from posthog', () => {
  it('stages both exports keeping every uuid; a quoted glob over them stages nothing new', async () => {
    const target = stagingIn(tempDir());
    const first = await exportSource(target, ['--from', 'posthog', DIR]);
    expect(first.totals).toMatchObject({ rowsRead: 256, staged: 251, rejected: 5 });
    expect((await rejectsOf(target)).map((r) => [r.line, r.reason, r.field])).toEqual([
      [21, 'bad_uuid', 'uuid'],
      [41, 'missing_distinct_id', 'distinct_id'],
      [61, 'bad_json', ''],
      [81, 'future_timestamp', 'timestamp'],
      [101, 'missing_event', 'event'],
    ]);
    const again = await exportSource(target, ['--from', 'posthog', join(DIR, 'events-*.jsonl*'), '--reread']);
    expect(again.totals).toMatchObject({ staged: 0, alreadyStaged: 251 });

    const staged = new Map(readStagedEvents(target.staging).map((e) => [e.uuid, e]));
    const sources = [...records(FIRST), ...records(SECOND)].filter((r) => typeof r.uuid === 'string' && staged.has(r.uuid));
    expect(sources).toHaveLength(250); // the 251st had no uuid and got a derived one
    for (const source of sources) {
      const event = staged.get(source.uuid as string)!;
      expect(event).toMatchObject({ event: source.event, distinct_id: source.distinct_id });
      expect(event.timestamp).toBe(stagedTimeOf(String(source.timestamp)));
      for (const dropped of ['person_id', 'person_properties', 'team_id', 'created_at', '_inserted_at']) expect(event.properties).not.toHaveProperty(dropped);
    }
  });

  it('reads properties written as JSON text and a timestamp without a zone as UTC', async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'posthog', SECOND], { TZ: 'Asia/Tokyo' });
    const source = records(SECOND);
    const staged = new Map(readStagedEvents(target.staging).map((e) => [e.uuid, e]));
    const asText = source[3]!;
    expect(typeof asText.properties).toBe('string');
    expect(staged.get(asText.uuid as string)!.properties).toMatchObject(JSON.parse(asText.properties as string));
    const zoneless = source[7]!;
    expect(zoneless.timestamp).toMatch(/^\d{4}-\d{2}-\d{2} [\d:.]+$/);
    expect(staged.get(zoneless.uuid as string)!.timestamp).toBe(stagedTimeOf(String(zoneless.timestamp)));
    const autocapture = [...staged.values()].find((e) => e.event === '$autocapture')!;
    expect(autocapture.properties.$elements_chain).toMatch(/^button\.btn/);
  });
});

describe('inputs for every format', () => {
  it('reads a CSV inside a zip with the same uuids as the plain file', async () => {
    const target = stagingIn(tempDir());
    const csv = readFileSync(join(FIXTURES, 'sample-events.csv'));
    writeFileSync(join(target.dir, 'events.zip'), makeZip([{ name: 'export/sample-events.csv', data: csv, method: 'deflate' }]));
    const zipped = await exportSource(target, ['--from', 'csv', 'events.zip']);
    expect(zipped.files[0].displayName).toBe('events.zip!export/sample-events.csv');
    expect(zipped.totals.staged).toBe(3000);
    const plain = await exportSource(target, ['--from', 'csv', join(FIXTURES, 'sample-events.csv')]);
    expect(plain.totals).toMatchObject({ staged: 0, alreadyStaged: 3000 });
  });

  it('refuses a directory or a glob that gives no source files, before staging anything', async () => {
    const target = stagingIn(tempDir());
    const result = await runCli(['export-source', '--from', 'posthog', FIRST, join(target.dir, 'nothing-*.jsonl'), '--staging', target.staging], { cwd: target.dir });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('nothing-*.jsonl: no file matches this pattern');
    const status = await runCli(['status', '--json', '--staging', target.staging], { cwd: target.dir });
    expect(status.code).toBe(7); // no staging file was even created
  });
});
