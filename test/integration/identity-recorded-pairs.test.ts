/**
 * The identity pairs are recorded as rows are staged, in the rows' own transactions, and merged
 * by the links pass; they must be exactly the pairs a scan of the staged rows draws (as the pass
 * did before), whatever the order or split of the files, across a run killed mid-read (SIGKILL,
 * through the test hook) and resumed, and for a file staged before pairs were recorded.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sqlite/database.js';
import { collectPairs, LINK_FORMATS, linkReads } from '../../src/staging/identity-store.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { runCli } from '../helpers/run-cli.js';
import { readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

const START = Date.UTC(2025, 2, 1);
/** Pieces of 64 Ki characters in the runs killed mid-read (and the whole runs they are compared with). */
const PIECES = { MIGRATE_TEST_PIECE_CHARS: String(64 * 1024) };
/** About 200 bytes a row: four pieces of 64 Ki characters, so a kill after one leaves a partial read. */
const ROWS = 1400;
/**
 * Rows of a file staged on a worker thread: pieces read ahead on a thread share a commit until
 * it holds 4,096 rows (piece-pool.ts), so the file goes on past the first commit.
 */
const ROWS_ON_WORKER = 6000;

/** Mixpanel lines: devices seen anonymously and with users, some ids numbers or values only SQL spells. */
function mixpanelLines(rows: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    const device = i % 211 === 7 ? 1.5 : i % 307 === 3 ? true : i % 5 === 0 ? 4000 + (i % 97) : `dev-${i % 1009}`;
    const userNo = (i * 7) % 613;
    const who =
      i % 3 === 0 ? { distinct_id: `$device:${String(device)}` } : userNo % 50 === 0 ? { distinct_id: String(userNo), $user_id: userNo } : { distinct_id: `u${userNo}`, $user_id: `u${userNo}` };
    const time = (START + ((i * 7919) % rows) * 60_000) / 1000;
    lines.push(JSON.stringify({ event: 'Viewed', properties: { time, $insert_id: `mp-${i}`, $device_id: device, ...who, note: 'n'.repeat(90) } }));
  }
  return lines;
}

function amplitudeLines(rows: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    const ms = START + ((i * 31) % rows) * 60_000;
    lines.push(
      JSON.stringify({
        event_type: 'Viewed',
        event_time: new Date(ms).toISOString().replace('T', ' ').replace('Z', '000'),
        uuid: `4b1393cc-b7f8-431b-8f05-${String(i).padStart(12, '0')}`,
        device_id: `ad${i % 53}`,
        user_id: i % 4 === 0 ? null : `au${(i * 3) % 41}`,
        event_properties: {},
        user_properties: {},
      }),
    );
  }
  return lines;
}

function writeLines(dir: string, name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

async function stage(staging: string, args: string[], env: Record<string, string> = {}) {
  const result = await runCli(['export-source', '--staging', staging, '--quiet', ...args], { cwd: tempDir(), env });
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return result;
}

async function staged(staging: string, args: string[], env: Record<string, string> = {}) {
  const result = await stage(staging, args, env);
  expect(result.code, result.stderr).toBe(0);
}

/** What the links pass keeps, and the links it staged. */
function identity(staging: string) {
  return readStaging(staging, (db) => ({
    pairs: db.prepare('SELECT device, user, first_ms FROM identity_pairs ORDER BY device, user').all(),
    devices: db.prepare('SELECT device, users, first_user, decision, link_user, hex(link_uuid) AS link, link_ms FROM identity_devices ORDER BY device').all(),
    links: db.prepare("SELECT distinct_id, timestamp_ms, hex(uuid) AS uuid FROM events WHERE event = '$identify' ORDER BY uuid").all(),
    recorded: db.prepare('SELECT count(*) FROM identity_new_pairs').pluck().get(),
  }));
}

/** The pairs a scan of every staged row draws: what the pass drew before pairs were recorded. */
function scannedPairs(staging: string): unknown[] {
  const store = StagingStore.open(staging);
  try {
    const db = store.db;
    db.exec('SAVEPOINT scan; DELETE FROM identity_pairs;');
    const { reads } = linkReads(store);
    for (const format of LINK_FORMATS) collectPairs(store, format, reads[format], 0);
    const pairs = db.prepare('SELECT device, user, first_ms FROM identity_pairs ORDER BY device, user').all();
    db.exec('ROLLBACK TO scan; RELEASE scan;');
    return pairs;
  } finally {
    store.close();
  }
}

/** A file of `rows` rows and its staging run never interrupted, made once per file for each thread choice (a kill test and the upgrade test share the main thread's). */
const killFixtures = new Map<string, Promise<{ args: string[]; whole: string }>>();
const fixtureDir = mkdtempSync(join(tmpdir(), 'migrate-test-pairs-'));
afterAll(() => rmSync(fixtureDir, { recursive: true, force: true }));

function killFixture(workers: string): Promise<{ args: string[]; whole: string }> {
  let fixture = killFixtures.get(workers);
  if (fixture === undefined) {
    fixture = (async () => {
      const file = writeLines(fixtureDir, `big-${workers}.jsonl`, mixpanelLines(workers === '0' ? ROWS : ROWS_ON_WORKER));
      const args = ['--from', 'mixpanel', '--workers', workers, file];
      const whole = join(fixtureDir, `whole-${workers}.db`);
      await staged(whole, args, PIECES);
      return { args, whole };
    })();
    killFixtures.set(workers, fixture);
  }
  return fixture;
}

describe('identity pairs recorded as rows are staged', () => {
  it('are the pairs a scan of the staged rows draws, numbers and values only SQL spells included, and leave nothing recorded after the pass', async () => {
    const dir = tempDir();
    const staging = join(dir, 'm.db');
    await staged(staging, ['--from', 'mixpanel', '--workers', '1', writeLines(dir, 'mp.jsonl', mixpanelLines(1500))]);
    await staged(staging, ['--from', 'amplitude', '--workers', '0', writeLines(dir, 'amp.json', amplitudeLines(1000))]);
    const got = identity(staging);
    expect(got.recorded).toBe(0);
    expect(got.pairs.length).toBeGreaterThan(600);
    expect(got.pairs).toContainEqual(expect.objectContaining({ device: '$device:1.5' }));
    expect(got.pairs).toContainEqual(expect.objectContaining({ device: '$device:1' }));
    expect(got.pairs).toContainEqual(expect.objectContaining({ user: '50' }));
    expect(got.pairs).toEqual(scannedPairs(staging));
  }, 120_000);

  it('are the same for the same rows in another order, or split over two runs', async () => {
    const dir = tempDir();
    const lines = mixpanelLines(2000);
    const whole = join(dir, 'whole.db');
    await staged(whole, ['--from', 'mixpanel', writeLines(dir, 'all.jsonl', lines)]);
    const expected = identity(whole);
    expect(expected.links.length).toBeGreaterThan(100);

    const reversed = join(dir, 'reversed.db');
    await staged(reversed, ['--from', 'mixpanel', writeLines(dir, 'reversed.jsonl', [...lines].reverse())]);
    expect(identity(reversed)).toEqual(expected);

    const split = join(dir, 'split.db');
    await staged(split, [
      '--from',
      'mixpanel',
      writeLines(
        dir,
        'second.jsonl',
        lines.filter((_, i) => i % 2 === 1),
      ),
    ]);
    await staged(split, [
      '--from',
      'mixpanel',
      writeLines(
        dir,
        'first.jsonl',
        lines.filter((_, i) => i % 2 === 0),
      ),
    ]);
    expect(identity(split)).toEqual(expected);
  }, 120_000);

  it('leave no pair behind for rows taken out: a file staged again with --replace-changed gives what staging its new content alone gives', async () => {
    const dir = tempDir();
    const lines = mixpanelLines(1500);
    // The new content: a third of the rows gone (first meetings among them), some devices changed.
    const changed = lines.filter((_, i) => i % 3 !== 1).map((line, i) => (i % 7 === 0 ? line.replace(/"\$device_id":"dev-/, '"$device_id":"moved-') : line));
    const staging = join(dir, 'm.db');
    const path = writeLines(dir, 'export.jsonl', lines);
    await staged(staging, ['--from', 'mixpanel', path]);
    writeLines(dir, 'export.jsonl', changed);
    await staged(staging, ['--from', 'mixpanel', '--replace-changed', path]);
    const fresh = join(dir, 'fresh.db');
    await staged(fresh, ['--from', 'mixpanel', writeLines(dir, 'fresh.jsonl', changed)]);
    expect(readStaging(staging, (db) => db.prepare('SELECT count(*) FROM withdrawn_events WHERE kind = 0').pluck().get())).toBeGreaterThan(100);
    const got = identity(staging);
    const want = identity(fresh);
    expect(got.pairs).toEqual(want.pairs);
    expect(got.pairs).toEqual(scannedPairs(staging));
    expect(got.recorded).toBe(0);
  }, 120_000);

  it.each([
    ['on the main thread', '0'],
    ['on a worker thread', '1'],
  ])(
    'are the same after a read killed mid-way (SIGKILL) and resumed, %s',
    async (_name, workers) => {
      const dir = tempDir();
      const { args, whole } = await killFixture(workers);

      const resumed = join(dir, 'resumed.db');
      const killed = await stage(resumed, args, { ...PIECES, MIGRATE_TEST_KILL_AFTER_PIECES: '1' });
      expect(killed.signal).toBe('SIGKILL');
      const partial = readStaging(resumed, (db) => ({
        rows: db.prepare('SELECT count(*) FROM events').pluck().get() as number,
        recorded: db.prepare('SELECT count(*) FROM identity_new_pairs').pluck().get() as number,
      }));
      expect(partial.rows).toBeGreaterThan(0);
      expect(partial.rows).toBeLessThan(workers === '0' ? ROWS : ROWS_ON_WORKER);
      expect(partial.recorded).toBeGreaterThan(0);
      await staged(resumed, args, PIECES);
      expect(identity(resumed)).toEqual(identity(whole));
    },
    120_000,
  );

  it('a file staged before pairs were recorded (killed mid-read, upgraded) draws its rows pairs with one scan, once', async () => {
    const dir = tempDir();
    const { args, whole } = await killFixture('0');

    const older = join(dir, 'older.db');
    expect((await stage(older, args, { ...PIECES, MIGRATE_TEST_KILL_AFTER_PIECES: '1' })).signal).toBe('SIGKILL');
    // The layout before: no table of recorded pairs, so its staged rows have none.
    const db = openDatabase(older);
    db.exec('DROP TABLE identity_new_pairs');
    // And no uuid mapping (schema 18), which the upgrade fills again from events.
    db.exec('DROP TRIGGER event_uuid_gone; DROP VIEW event_uuids; DROP TABLE uuid_keys; DROP TABLE uuid_merged; DROP TABLE uuid_recent; DROP TABLE uuid_key_counts');
    // Nor what later versions added (Heap sessions, microseconds, sources' identities, the pace).
    db.exec('DROP TABLE heap_session_rows; DROP TABLE heap_sessions; DROP TABLE heap_session_dirty');
    for (const [table, column] of [
      ['events', 'sub_ms_us'],
      ['bucket_objects', 'endpoint'],
      ['source_reads', 'source_identity'],
      ['import_runs', 'pace'],
    ]) {
      const has = db.prepare(`SELECT count(*) FROM pragma_table_info('${table}') WHERE name = ?`).pluck().get(column) === 1;
      if (has) db.exec(`ALTER TABLE ${table} DROP COLUMN ${column}`);
    }
    db.pragma('user_version = 16');
    db.close();
    await staged(older, args, PIECES);
    expect(readStaging(older, (d) => d.prepare("SELECT count(*) FROM meta WHERE key = 'identity_pairs_scan'").pluck().get())).toBe(0);
    expect(identity(older)).toEqual(identity(whole));
  }, 120_000);
});
