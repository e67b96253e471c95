/**
 * The passes after staging (identity links, sessions, group updates) work over the whole staging
 * file, so the same events staged as one file per format, or as several files in any order (a
 * later month first, files whose times interleave), give the same staging content: the rows and
 * their uuids and properties, the links, the session ids, the group updates. Each file is staged
 * by its own run of the built CLI, as monthly exports are.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportSource, stagingIn, type Staging } from '../helpers/export-source.js';
import { runCli } from '../helpers/run-cli.js';
import { readStaging } from '../helpers/staging.js';
import { openDatabase } from '../../src/sqlite/database.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { STAGED_PROPERTIES_TEXT } from '../helpers/staged-properties.js';

const tempDir = useTempDir();

const START = Date.UTC(2025, 6, 1);
const DAY = 86_400_000;

/** A small seeded generator: the same events every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Timed {
  ms: number;
  line: string;
}

/** Mixpanel (simplified ID merge): devices seen anonymously and with one or several users, over three months. */
function mixpanelEvents(random: () => number): Timed[] {
  const events: Timed[] = [];
  for (let i = 0; i < 90; i++) {
    const device = `d${1 + Math.floor(random() * 6)}`;
    const user = random() < 0.55 ? `u${1 + Math.floor(random() * 5)}` : undefined;
    const ms = START + Math.floor((random() * 90 * DAY) / 60_000) * 60_000;
    const who = user === undefined ? { distinct_id: `$device:${device}` } : { distinct_id: user, $user_id: user };
    events.push({ ms, line: JSON.stringify({ event: 'Viewed', properties: { time: ms / 1000, $insert_id: `mp-${i}`, $device_id: device, ...who } }) });
  }
  return events;
}

const amplitudeTime = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000');

/** Amplitude: devices and users as above, sessions of their own, two groups whose plan changes over time. */
function amplitudeEvents(random: () => number): Timed[] {
  const events: Timed[] = [];
  for (let i = 0; i < 90; i++) {
    const ms = START + Math.floor((random() * 90 * DAY) / 60_000) * 60_000;
    const company = random() < 0.5 ? 'acme' : 'globex';
    const plan = ['free', 'pro', 'team'][Math.floor(random() * 3)];
    const record = {
      event_type: 'Viewed',
      event_time: amplitudeTime(ms),
      uuid: `4b1393cc-b7f8-431b-8f05-${String(i).padStart(12, '0')}`,
      device_id: `ad${1 + Math.floor(random() * 6)}`,
      user_id: random() < 0.55 ? `au${1 + Math.floor(random() * 5)}` : null,
      session_id: ms - (ms % 3_600_000),
      event_properties: {},
      user_properties: {},
      groups: { company: [company] },
      group_properties: { company: { [company]: { plan } } },
    };
    events.push({ ms, line: JSON.stringify(record) });
  }
  return events;
}

interface SourceFile {
  format: 'mixpanel' | 'amplitude';
  path: string;
}

function write(dir: string, name: string, format: SourceFile['format'], events: Timed[]): SourceFile {
  const path = join(dir, name);
  writeFileSync(path, events.map((e) => e.line).join('\n') + '\n');
  return { format, path };
}

/** Months (contiguous thirds in time) for Mixpanel; files whose times interleave (every third event) for Amplitude. */
function splitFiles(dir: string, mixpanel: Timed[], amplitude: Timed[]): SourceFile[] {
  const byTime = (events: Timed[]) => [...events].sort((a, b) => a.ms - b.ms);
  const mp = byTime(mixpanel);
  const third = Math.ceil(mp.length / 3);
  const amp = byTime(amplitude);
  return [0, 1, 2].flatMap((n) => [
    write(dir, `mixpanel-${n}.jsonl`, 'mixpanel', mp.slice(n * third, (n + 1) * third)),
    write(
      dir,
      `amplitude-${n}.json`,
      'amplitude',
      amp.filter((_, i) => i % 3 === n),
    ),
  ]);
}

async function stage(target: Staging, files: SourceFile[]): Promise<void> {
  for (const file of files) {
    const sessions = file.format === 'mixpanel' ? ['--sessionize', '30'] : [];
    await exportSource(target, ['--from', file.format, ...sessions, file.path]);
  }
}

/** What the staging file holds, as text, in an order defined by content (the send order: kind, then time). */
type StagedContent = Record<'events' | 'devices' | 'pairs' | 'groupUpdates' | 'sessions', unknown[]>;

function content(staging: string): StagedContent {
  return readStaging(staging, (db) => ({
    events: db
      .prepare(
        `SELECT kind, event, distinct_id, timestamp_ms, hex(uuid) AS uuid, json_remove(${STAGED_PROPERTIES_TEXT}, '$."$import_run"') AS properties
         FROM events ORDER BY kind, timestamp_ms, uuid`,
      )
      .all(),
    devices: db.prepare('SELECT device, users, first_user, decision, link_user, hex(link_uuid) AS link, link_ms FROM identity_devices ORDER BY device').all(),
    pairs: db.prepare('SELECT device, user, first_ms FROM identity_pairs ORDER BY device, user').all(),
    groupUpdates: db.prepare('SELECT type, key, hex(uuid) AS uuid, timestamp_ms, hex(version) AS version FROM group_updates ORDER BY type, key, timestamp_ms').all(),
    sessions: db.prepare('SELECT distinct_id, timestamp_ms, hex(uuid) AS uuid, session_start_ms FROM session_events ORDER BY distinct_id, timestamp_ms, uuid').all(),
  }));
}

function shuffled<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const mixpanelLine = (user: string, ms: number): Timed => ({
  ms,
  line: JSON.stringify({ event: 'Viewed', properties: { time: ms / 1000, $insert_id: `${user}-${ms}`, distinct_id: user, $user_id: user, $device_id: 'd1' } }),
});

describe('the passes after staging, whatever the order and split of the files', () => {
  it('stages a second file whose users met on a shared device earlier than the first file says', async () => {
    const target = stagingIn(tempDir());
    const later = write(target.dir, 'september.jsonl', 'mixpanel', [mixpanelLine('u1', START + 60 * DAY), mixpanelLine('u2', START + 60 * DAY + 60_000)]);
    const earlier = write(target.dir, 'july.jsonl', 'mixpanel', [mixpanelLine('u1', START), mixpanelLine('u2', START + 60_000)]);
    await stage(target, [later, earlier]);
    const links = readStaging(target.staging, (db) => db.prepare("SELECT distinct_id, timestamp_ms FROM events WHERE event = '$identify'").all());
    expect(links).toEqual([{ distinct_id: 'u1', timestamp_ms: START - 1 }]);
  });

  it('tells a SQLite failure inside the passes in words, with no stack trace, and leaves them pending', async () => {
    const target = stagingIn(tempDir());
    await stage(target, [write(target.dir, 'september.jsonl', 'mixpanel', [mixpanelLine('u1', START + 60 * DAY)])]);
    // A statement the passes make fails (as a damaged or unforeseen state of the file would).
    const db = openDatabase(target.staging);
    db.exec("CREATE TRIGGER refuse_dirty BEFORE INSERT ON identity_dirty BEGIN SELECT RAISE(ABORT, 'refused for the test'); END");
    db.close();
    const failed = await runCli(['export-source', '--staging', target.staging, '--from', 'mixpanel', write(target.dir, 'july.jsonl', 'mixpanel', [mixpanelLine('u1', START)]).path], {
      cwd: target.dir,
    });
    expect(failed.code).toBe(7);
    expect(failed.stderr).toContain('the passes after staging (identity links, group updates, session ids) failed');
    expect(failed.stderr).toContain('refused for the test');
    expect(failed.stderr).not.toMatch(/unexpected failure|\n\s+at /);
    expect(readStaging(target.staging, (db) => db.prepare("SELECT value FROM meta WHERE key = 'passes_pending'").pluck().get())).toBeDefined();
  });

  it('give the same staging content for one file per format and for several files staged one at a time in shuffled orders', async () => {
    const random = seeded(27);
    const mixpanel = mixpanelEvents(random);
    const amplitude = amplitudeEvents(random);

    const whole = stagingIn(tempDir());
    await stage(whole, [write(whole.dir, 'mixpanel.jsonl', 'mixpanel', mixpanel), write(whole.dir, 'amplitude.json', 'amplitude', amplitude)]);
    const expected = content(whole.staging);
    // The data has what the passes work on: links (and shared devices), sessions, group changes.
    expect(expected.events.filter((e) => (e as { event: string }).event === '$identify').length).toBeGreaterThan(3);
    expect(expected.groupUpdates.length).toBeGreaterThan(4);
    expect(expected.sessions.length).toBeGreaterThan(40);

    const split = splitFiles(tempDir(), mixpanel, amplitude);
    const orders = [[...split].reverse(), shuffled(split, random), shuffled(split, random)];
    for (const order of orders) {
      const target = stagingIn(tempDir());
      await stage(target, order);
      expect(content(target.staging), order.map((f) => f.path.split('/').pop()).join(', ')).toEqual(expected);
    }
  }, 300_000);
});
