/**
 * `export-source --from heap` on a Heap Connect folder written by the test's own Avro writer
 * (test/helpers/heap-layout.ts): dumps read as their manifests say, a full resync replacing its
 * table's earlier rows, the same staging whatever the order the dumps arrived in, and the
 * import into the sandbox with every value compared with the source and Heap's merged users
 * one person.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { heapSessionId } from '../../src/sources/vendors/heap-session.js';
import { HEAP_DUMPS, HEAP_USERS, type PageviewRow, writeHeapFolder } from '../helpers/heap-layout.js';
import { stagingIn, type Staging } from '../helpers/export-source.js';
import { runCli } from '../helpers/run-cli.js';
import { asIngested, storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { readStagedEvents, type StagedRow } from '../helpers/staged-events.js';
import { FAST, readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { STAGED_PROPERTIES_TEXT } from '../helpers/staged-properties.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();

async function stageHeap(target: Staging, folder: string, json = true) {
  const result = await runCli(['export-source', '--from', 'heap', folder, '--staging', target.staging, ...(json ? ['--json'] : [])], { cwd: target.dir });
  expect(result.code, result.stderr).toBe(0);
  return { summary: json ? JSON.parse(result.stdout) : undefined, stdout: result.stdout, stderr: result.stderr };
}

/** A timestamp-micros value as the Avro reader writes it. */
function microsText(us: bigint): string {
  return `${new Date(Number(us / 1000n)).toISOString().slice(0, 23)}${String(us % 1000n).padStart(3, '0')}Z`;
}

function pageviewProperties(row: PageviewRow): Record<string, unknown> {
  const sessionTime = microsText(row.session_time);
  return {
    event_id: Number(row.event_id),
    session_id: Number(row.session_id),
    session_time: sessionTime,
    domain: row.domain,
    path: row.path,
    ...(row.title === null ? {} : { title: row.title }),
    ...(row.referrer === null ? {} : { referrer: row.referrer, $referrer: row.referrer }),
    $host: row.domain,
    $pathname: row.path,
    $session_id: heapSessionId(row.user_id, row.session_id, sessionTime),
  };
}

/** The events the folder stands for once dump 2 resynced pageviews: each with the values its source row has. */
function expectedEvents() {
  const pageviews = HEAP_DUMPS[2].pageviews.map((row) => ({
    event: '$pageview',
    distinct_id: String(row.user_id),
    timestamp: new Date(Number(row.time / 1000n)).toISOString(),
    properties: pageviewProperties(row),
  }));
  const clicks = [...HEAP_DUMPS[1].signup_click, ...HEAP_DUMPS[2].signup_click].map((row) => ({
    event: 'signup_click',
    distinct_id: String(row.user_id),
    timestamp: new Date(`${row.time.replace(' ', 'T')}Z`).toISOString(),
    properties: {
      event_id: Number(row.event_id),
      session_id: Number(row.session_id),
      session_time: row.session_time,
      button: row.button,
      $session_id: heapSessionId(row.user_id, row.session_id, row.session_time),
    },
  }));
  return [...pageviews, ...clicks].sort((a, b) => (a.properties.event_id as number) - (b.properties.event_id as number));
}

const SOURCE_ONLY = ['$geoip_disable', '$import_source', '$import_run'];

function eventsOf(staged: StagedRow[]) {
  return staged
    .filter((row) => row.event !== '$identify')
    .map(({ event, distinct_id, timestamp, properties }) => ({
      event,
      distinct_id,
      timestamp,
      properties: Object.fromEntries(Object.entries(properties).filter(([key]) => !SOURCE_ONLY.includes(key))),
    }))
    .sort((a, b) => (a.properties.event_id as number) - (b.properties.event_id as number));
}

/** Staged content that must not depend on how the dumps arrived (without the run's id). */
function content(staging: string) {
  return readStaging(staging, (db) =>
    db.prepare(`SELECT hex(uuid) AS uuid, kind, event, distinct_id, timestamp_ms, json_remove(${STAGED_PROPERTIES_TEXT}, '$."$import_run"') AS p FROM events ORDER BY uuid`).all(),
  );
}

describe('export-source --from heap', () => {
  it('stages complete dumps only, lets a full resync replace its table, and stages the same whatever order the dumps came in', async () => {
    const dir = tempDir();
    const folder = join(dir, 'heap');
    writeHeapFolder(folder, [1]);
    const stepwise = stagingIn(dir);
    const first = await stageHeap(stepwise, folder);
    expect(first.summary.totals).toMatchObject({ rowsRead: 8, staged: 8, rejected: 0 });
    expect(first.stderr).toContain('sync_3 not read (1 file): it has no manifest yet');

    writeHeapFolder(folder, [2]);
    const second = await stageHeap(stepwise, folder);
    // Dump 1's three page views are withdrawn (dump 2 holds the table whole); its other tables, unchanged since staged, are not read again.
    expect(second.summary.totals).toMatchObject({ rowsRead: 5, staged: 5, alreadyStaged: 0, withdrawn: 3, rejected: 0 });
    expect(second.summary.unchanged).toHaveLength(3);
    const again = await stageHeap(stepwise, folder);
    expect(again.summary.totals).toMatchObject({ rowsRead: 0, staged: 0, withdrawn: 0 });

    const atOnce = { dir, staging: join(dir, 'at-once.db') };
    await stageHeap(atOnce, folder);
    expect(content(atOnce.staging)).toEqual(content(stepwise.staging));
    expect(eventsOf(readStagedEvents(atOnce.staging))).toEqual(expectedEvents());
  });

  it('imports every event once with every value as Heap wrote it, and Heap merged users as one person', async () => {
    const sandbox = await sandboxAt();
    const target = stagingIn(tempDir());
    const folder = join(target.dir, 'heap');
    writeHeapFolder(folder);
    const staging = await stageHeap(target, folder, false);
    expect(`${staging.stdout}${staging.stderr}`).toContain("Heap table sessions not read (1 file): Heap copies each session's properties onto its events, and a session starts with its first event");
    const config = writeSandboxConfig(target.dir, sandbox);
    const imported = await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir });
    expect(imported.code, imported.stderr).toBe(0);

    const staged = readStagedEvents(target.staging);
    const stored = storedEvents(sandbox, 1);
    expect(stored).toHaveLength(staged.length);
    expect(new Set(stored.map((e) => e.uuid)).size).toBe(stored.length);
    for (const row of staged) {
      const copy = stored.find((e) => e.uuid === row.uuid)!;
      expect({ event: copy.event, distinct_id: copy.distinct_id, timestamp: copy.timestamp }).toEqual({ event: row.event, distinct_id: row.distinct_id, timestamp: row.timestamp });
      expect(JSON.parse(copy.properties)).toEqual(asIngested(row.properties));
    }
    const events = stored.filter((e) => e.event !== '$identify');
    expect(eventsOf(events.map((e) => ({ ...e, properties: JSON.parse(e.properties), source: '', line: 0 })))).toEqual(
      expectedEvents().map((e) => ({ ...e, properties: { ...e.properties, $ip: '127.0.0.1' } })),
    );

    const personOf = (id: string) => sandbox.store.db.prepare('SELECT person_id FROM person_distinct_ids WHERE team_id = 1 AND distinct_id = ?').pluck().get(id) as number;
    const alice = personOf('alice@example.com');
    expect([personOf(String(HEAP_USERS.alice)), personOf(String(HEAP_USERS.merged))]).toEqual([alice, alice]);
    expect(personOf(String(HEAP_USERS.anonymous))).not.toBe(alice);
    const properties = JSON.parse(sandbox.store.db.prepare('SELECT properties FROM persons WHERE id = ?').pluck().get(alice) as string);
    expect(properties).toMatchObject({ email: 'alice@example.com', plan: 'pro' });
    // The merged user's click was ingested on the identified person.
    const click = stored.find((e) => e.event === 'signup_click' && e.distinct_id === String(HEAP_USERS.merged))!;
    expect(sandbox.store.db.prepare('SELECT person_id FROM events WHERE uuid = ?').pluck().get(click.uuid)).toBe(alice);
  });

  it('keeps the rows of a replaced dump a project received, and says so', async () => {
    const sandbox = await sandboxAt();
    const target = stagingIn(tempDir());
    const folder = join(target.dir, 'heap');
    writeHeapFolder(folder, [1]);
    await stageHeap(target, folder);
    const config = writeSandboxConfig(target.dir, sandbox);
    expect((await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir })).code).toBe(0);
    writeHeapFolder(folder, [2]);
    const result = await runCli(['export-source', '--from', 'heap', folder, '--staging', target.staging, '--json'], { cwd: target.dir });
    expect(result.stderr).toContain('3 rows staged from Heap dumps a later full dump replaced were already sent (test: 3); PostHog cannot delete events');
    const summary = JSON.parse(result.stdout);
    // 101 is met again as it was; 102 changed its title, which the row PostHog has cannot take: a reject says so.
    // Dump 1's files, unchanged since staged, are not read again: only dump 2's five rows are read.
    expect(summary.totals).toMatchObject({ withdrawn: 0, alreadyStaged: 1, staged: 3, rejected: 1, rejectedByReason: { conflicts_with_staged: 1 } });
  });

  it('refuses a folder whose manifest lists a file that is missing, naming it, and stages nothing', async () => {
    const target = stagingIn(tempDir());
    const folder = join(target.dir, 'heap');
    writeHeapFolder(folder);
    const users = join(folder, 'sync_2', 'users');
    rmSync(users, { recursive: true });
    const result = await runCli(['export-source', '--from', 'heap', folder, '--staging', target.staging], { cwd: target.dir });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('1 Heap data files the manifests list are missing');
    expect(result.stderr).toContain(`${users}/part-00000-`);
    expect(result.stderr).toContain('(listed by manifests/sync_2.json)');
    expect(result.stderr).not.toContain('    at ');
  });
});
