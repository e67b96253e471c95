/**
 * A PostHog batch-export folder (fixtures/posthog-batch-export: events of two runs, one with a
 * manifest, and the persons model of both runs) staged and imported into the sandbox: every
 * event once, a person merged in the source one person with its three (then four) distinct ids,
 * a person updated by the later run with the later properties, a deleted person not staged. The
 * persons as Parquet stage what their JSON lines stage; a run whose manifest lists a missing
 * file stages the others and fails naming it.
 */
import { cpSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { writeParquet } from '../helpers/duckdb.js';
import { exportSource, stagingIn } from '../helpers/export-source.js';
import { FIXTURES, runCli } from '../helpers/run-cli.js';
import { storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { FAST } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();
const EXPORT = join(FIXTURES, 'posthog-batch-export');
const RUN_1 = '2024-03-01T00:00:00+00:00-2024-03-02T00:00:00+00:00';
const RUN_2 = '2024-03-02T00:00:00+00:00-2024-03-03T00:00:00+00:00';

type Obj = Record<string, unknown>;

function lines(path: string): Obj[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Obj);
}

function personOf(sandbox: RunningSandbox, distinctId: string): { id: string; properties: Obj } | undefined {
  const row = sandbox.store.db.prepare('SELECT p.id, p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.team_id = 1 AND d.distinct_id = ?').get(distinctId) as
    | { id: string; properties: string }
    | undefined;
  return row && { id: String(row.id), properties: JSON.parse(row.properties) as Obj };
}

const sql = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/** A persons JSON-lines file as the Parquet a batch export writes: properties as JSON text, times as timestamps. */
async function personsAsParquet(from: string, to: string): Promise<void> {
  const selects = lines(from).map(
    (r) =>
      `SELECT ${r.team_id}::BIGINT AS team_id, ${sql(String(r.distinct_id))} AS distinct_id, ${sql(String(r.person_id))} AS person_id, ${sql(JSON.stringify(r.properties))} AS properties, ` +
      `${r.person_distinct_id_version}::BIGINT AS person_distinct_id_version, ${r.person_version}::BIGINT AS person_version, TIMESTAMPTZ ${sql(String(r.created_at))} AS created_at, ` +
      `TIMESTAMPTZ ${sql(String(r._inserted_at))} AS _inserted_at, ${r.is_deleted} AS is_deleted`,
  );
  await writeParquet(to, selects.join(' UNION ALL '), 'zstd');
}

describe('export-source --from posthog: a batch export with its persons', () => {
  it('stages events once and persons folded over both runs, and imports them as the source had them', async () => {
    const sandbox = await sandboxAt();
    const target = stagingIn(tempDir());
    const config = writeSandboxConfig(target.dir, sandbox);
    const first = await exportSource(target, ['--from', 'posthog', EXPORT]);
    expect(first.persons).toMatchObject({ rowsRead: 10, persons: 2, distinctIds: 5, deleted: 2, deletedDistinctIds: 1, rejected: [] });
    // 8 event rows (one re-sent by the second run, in another file); 2 persons as 2 updates and 3 links.
    expect(first.totals).toMatchObject({ rowsRead: 8 + 5, staged: 7 + 5, alreadyStaged: 1, rejected: 0 });
    expect(first.incomplete).toEqual([]);

    const imported = await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir });
    expect(imported.code, imported.stderr).toBe(0);

    const sources = [`${RUN_1}-0.jsonl`, `${RUN_1}-1.jsonl`, `${RUN_2}.jsonl`].flatMap((name) => lines(join(EXPORT, 'events', name)));
    const stored = storedEvents(sandbox, 1).filter((e) => e.event !== '$identify');
    expect(stored.map((e) => e.uuid).sort()).toEqual([...new Set(sources.map((s) => String(s.uuid)))].sort());
    for (const source of sources) {
      const event = stored.find((e) => e.uuid === source.uuid)!;
      const properties = JSON.parse(event.properties) as Obj;
      expect({ event: event.event, distinct_id: event.distinct_id }).toEqual({ event: source.event, distinct_id: source.distinct_id });
      expect(properties).toMatchObject(source.properties as Obj);
      if (source.elements_chain !== '') expect(properties.$elements_chain).toBe(source.elements_chain);
      expect(properties).not.toHaveProperty('person_properties');
    }

    const ana = personOf(sandbox, 'user-ana')!;
    expect(ana.properties).toMatchObject({ email: 'ana@example.com', plan: 'free', $initial_referrer: '$direct' });
    for (const id of ['anon-a1', 'anon-a2', 'anon-a3']) expect(personOf(sandbox, id)?.id, id).toBe(ana.id);
    expect(ana.properties).not.toHaveProperty('stale');
    expect(personOf(sandbox, 'user-bob')!.properties).toMatchObject({ email: 'bob@example.com', plan: 'team', seats: 12 });
    // Deleted in the source: its events are kept, its properties are not staged.
    expect(personOf(sandbox, 'user-cat')!.properties).not.toHaveProperty('name');

    const unchanged = await exportSource(target, ['--from', 'posthog', join(EXPORT, 'persons'), join(EXPORT, 'events')]);
    // The event files are not read again; the persons files are folded as one read, and read each time.
    expect(unchanged.totals).toMatchObject({ rowsRead: 5, staged: 0 });
    expect(unchanged.unchanged).toHaveLength(3);
    const again = await exportSource(target, ['--from', 'posthog', join(EXPORT, 'persons'), join(EXPORT, 'events'), '--reread']);
    expect(again.totals).toMatchObject({ staged: 0, alreadyStaged: 8 + 5 });
  }, 120_000);

  it('the persons as Parquet, in either order, and as gzipped JSON lines stage exactly what their JSON lines stage', async () => {
    const dir = tempDir();
    await personsAsParquet(join(EXPORT, 'persons', `${RUN_1}.jsonl`), join(dir, `${RUN_1}.parquet.zst`));
    await personsAsParquet(join(EXPORT, 'persons', `${RUN_2}.jsonl`), join(dir, `${RUN_2}.parquet.zst`));
    const persons = (staging: string) =>
      readStagedEvents(staging)
        .map((e) => ({ ...e, properties: { ...e.properties, $import_run: undefined } }))
        .sort((a, b) => (a.uuid < b.uuid ? -1 : 1));
    const fromJson = stagingIn(tempDir());
    await exportSource(fromJson, ['--from', 'posthog', join(EXPORT, 'persons')]);
    const fromParquet = stagingIn(dir);
    const read = await exportSource(fromParquet, ['--from', 'posthog', join(dir, `${RUN_2}.parquet.zst`), join(dir, `${RUN_1}.parquet.zst`)]);
    expect(read.persons).toMatchObject({ rowsRead: 10, persons: 2, distinctIds: 5, deleted: 2 });
    expect(persons(fromParquet.staging)).toEqual(persons(fromJson.staging));
    // JSON lines gzipped one member per line, as batch exports write them.
    const gzipped = join(tempDir(), 'gz');
    mkdirSync(gzipped);
    for (const run of [RUN_1, RUN_2]) {
      const text = readFileSync(join(EXPORT, 'persons', `${run}.jsonl`), 'utf8');
      writeFileSync(join(gzipped, `${run}.jsonl.gz`), Buffer.concat(text.split(/(?<=\n)/).map((line) => gzipSync(line))));
    }
    const fromGzip = stagingIn(gzipped);
    await exportSource(fromGzip, ['--from', 'posthog', gzipped]);
    expect(persons(fromGzip.staging)).toEqual(persons(fromJson.staging));
  }, 60_000);

  it('the two runs staged by separate export-source runs, in either order, leave the rows one run over both leaves', async () => {
    const rows = (staging: string) =>
      readStagedEvents(staging)
        .map((e) => ({ uuid: e.uuid, event: e.event, distinct_id: e.distinct_id, timestamp: e.timestamp, properties: { ...e.properties, $import_run: undefined } }))
        .sort((a, b) => (a.uuid < b.uuid ? -1 : 1));
    const whole = stagingIn(tempDir());
    await exportSource(whole, ['--from', 'posthog', EXPORT]);
    const run = (name: string) => [join(EXPORT, 'persons', `${name}.jsonl`), join(EXPORT, 'events', `${name}${name === RUN_1 ? '-0' : ''}.jsonl`)];
    for (const order of [
      [RUN_1, RUN_2],
      [RUN_2, RUN_1],
    ]) {
      const split = stagingIn(tempDir());
      for (const name of order) await exportSource(split, ['--from', 'posthog', ...run(name)]);
      await exportSource(split, ['--from', 'posthog', join(EXPORT, 'events', `${RUN_1}-1.jsonl`)]);
      expect(rows(split.staging), order.join(' then ')).toEqual(rows(whole.staging));
    }
  }, 60_000);

  it('run 1 staged and imported, then run 2: the destination ends with the later persons', async () => {
    const sandbox = await sandboxAt();
    const target = stagingIn(tempDir());
    const config = writeSandboxConfig(target.dir, sandbox);
    const runOf = (name: string) => [
      join(EXPORT, 'persons', `${name}.jsonl`),
      ...(name === RUN_1 ? [`${RUN_1}-0.jsonl`, `${RUN_1}-1.jsonl`] : [`${RUN_2}.jsonl`]).map((f) => join(EXPORT, 'events', f)),
    ];
    for (const name of [RUN_1, RUN_2]) {
      await exportSource(target, ['--from', 'posthog', ...runOf(name)]);
      const imported = await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir });
      expect(imported.code, imported.stderr).toBe(0);
    }
    const ana = personOf(sandbox, 'user-ana')!;
    for (const id of ['anon-a1', 'anon-a2', 'anon-a3']) expect(personOf(sandbox, id)?.id, id).toBe(ana.id);
    expect(personOf(sandbox, 'user-bob')!.properties).toMatchObject({ plan: 'team', seats: 12 });
    // Deleted by run 2 after run 1's update was delivered: the destination keeps what it received.
    expect(personOf(sandbox, 'user-cat')!.properties).toMatchObject({ name: 'Cat' });
  }, 120_000);

  it('a persons file whose first row is longer than the first look at a file is still told by its columns', async () => {
    const target = stagingIn(tempDir());
    const row = { team_id: 1, distinct_id: 'big', person_id: '018e0000-0000-7000-8000-0000000000ff', properties: { blob: 'x'.repeat(40_000) } };
    const file = join(target.dir, 'persons.jsonl');
    writeFileSync(file, `${JSON.stringify({ ...row, person_distinct_id_version: 0, person_version: 1, created_at: '2024-01-01T00:00:00Z', is_deleted: false })}\n`);
    const read = await exportSource(target, ['--from', 'posthog', file]);
    expect(read.persons).toMatchObject({ rowsRead: 1, persons: 1, distinctIds: 1 });
    expect(readStagedEvents(target.staging)).toMatchObject([{ event: '$identify', distinct_id: 'big', properties: { $set: { blob: 'x'.repeat(40_000) } } }]);
  });

  it('a run whose manifest lists a file not in the folder: the others are staged, the run fails naming it', async () => {
    const dir = tempDir();
    const folder = join(dir, 'export');
    cpSync(EXPORT, folder, { recursive: true });
    const missing = join(folder, 'events', `${RUN_1}-1.jsonl`);
    renameSync(missing, join(dir, 'aside.jsonl'));
    const staging = join(dir, 'migration.db');
    const run = await runCli(['export-source', '--from', 'posthog', folder, '--staging', staging], { cwd: dir });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`${missing}: listed by ${join(folder, 'events', `${RUN_1}_manifest.json`)} but not in the folder`);
    expect(run.stderr).toContain('a batch export run is incomplete');
    const staged = readStagedEvents(staging).filter((e) => e.event !== '$identify');
    expect(staged.map((e) => e.distinct_id).sort()).toEqual(['anon-a1', 'anon-a2', 'anon-a3', 'user-ana', 'user-bob']);

    renameSync(join(dir, 'aside.jsonl'), missing);
    const again = await runCli(['export-source', '--from', 'posthog', folder, '--staging', staging, '--json'], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).totals).toMatchObject({ staged: 2 });
  }, 60_000);

  it('a file of a run its manifest does not list is left out, and files of no run are read and reported', async () => {
    const dir = tempDir();
    const folder = join(dir, 'export');
    cpSync(join(EXPORT, 'events'), folder, { recursive: true });
    cpSync(join(folder, `${RUN_1}-1.jsonl`), join(folder, `${RUN_1}-2.jsonl`));
    const run = await runCli(['export-source', '--from', 'posthog', folder, '--staging', join(dir, 'm.db'), '--json'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).files.map((f: { path: string }) => f.path)).toEqual([`${RUN_1}-0.jsonl`, `${RUN_1}-1.jsonl`, `${RUN_2}.jsonl`].map((n) => join(folder, n)));
    const text = await runCli(['export-source', '--from', 'posthog', folder, '--staging', join(dir, 'n.db')], { cwd: dir });
    expect(text.stderr).toContain(`${join(folder, `${RUN_1}-2.jsonl`)}: left out, its run's manifest does not list it`);
    expect(text.stderr).toContain(`1 file of no run's manifest read as well, e.g. ${join(folder, `${RUN_2}.jsonl`)}`);
  }, 60_000);
});
