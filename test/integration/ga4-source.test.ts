/**
 * `export-source --from ga4` on fixtures/ga4 (two days of a GA4 BigQuery export as JSON lines,
 * one plain and one gzipped), through the built CLI, then imported into a real sandbox, where
 * GA4's sessions are PostHog's without --sessionize.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { sessionsOf } from '../../src/sandbox/capture/ingested-data.js';
import { ga4SessionId } from '../../src/sources/vendors/ga4-session.js';
import { computedSessionId } from '../../src/passes/sessionize.js';
import { exportSource, rejectsOf, stagingIn } from '../helpers/export-source.js';
import { FIXTURES, runCli } from '../helpers/run-cli.js';
import { useSandbox, withoutGeoip, writeSandboxConfig } from '../helpers/sandbox.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { FAST } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { formatTimestamp } from '../../src/events/timestamp.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();
const DIR = join(FIXTURES, 'ga4');
const DAY1 = join(DIR, 'events_20250901.json');
const DAY2 = join(DIR, 'events_20250902.json.gz');

type Obj = Record<string, unknown>;

/** The `ga_session_id` parameter of a row, as GA4 writes it (digits), or undefined. */
function gaSessionIdOf(row: Obj): unknown {
  const params = Array.isArray(row.event_params) ? (row.event_params as Obj[]) : [];
  return (params.find((p) => p.key === 'ga_session_id')?.value as Obj | undefined)?.int_value;
}

/** The time of a UUIDv7, as ISO text. */
const v7Time = (id: string): string => new Date(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toISOString();

/** The parseable rows of both days with their file and line. */
function sourceRows(): Array<{ path: string; line: number; row: Obj }> {
  const rows: Array<{ path: string; line: number; row: Obj }> = [];
  for (const [path, text] of [
    [DAY1, readFileSync(DAY1, 'utf8')],
    [DAY2, gunzipSync(readFileSync(DAY2)).toString('utf8')],
  ] as const) {
    text.split('\n').forEach((line, i) => {
      try {
        rows.push({ path, line: i + 1, row: JSON.parse(line) as Obj });
      } catch {
        // The truncated line, and the end of the file.
      }
    });
  }
  return rows;
}

describe('export-source --from ga4', () => {
  it('gives the events of each GA4 session one UUIDv7 $session_id whose time is its start', async () => {
    const target = stagingIn(tempDir());
    const result = await exportSource(target, ['--from', 'ga4', DIR]);
    expect(JSON.stringify(result)).not.toContain('not a UUIDv7');
    const sessions = new Map<string, Set<unknown>>();
    for (const event of readStagedEvents(target.staging)) {
      const number = event.properties.$ga_session_id;
      if (number === undefined) continue;
      const id = event.properties.$session_id as string;
      expect(parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(Number(number) * 1000);
      const key = `${String(event.properties.ga4_user_pseudo_id ?? event.distinct_id)} ${String(number)}`;
      sessions.set(key, (sessions.get(key) ?? new Set()).add(id));
    }
    expect(sessions.size).toBeGreaterThan(1);
    for (const ids of sessions.values()) expect(ids.size).toBe(1);
  });

  it('stages both days; a second run stages nothing new', async () => {
    const target = stagingIn(tempDir());
    const first = await exportSource(target, ['--from', 'ga4', DIR]);
    expect(first.files.map((f: { path: string }) => f.path)).toEqual([DAY1, DAY2]);
    expect(first.totals).toMatchObject({ rowsRead: 76, staged: 70, duplicates: 1, rejected: 5 });
    expect((await exportSource(target, ['--from', 'ga4', DIR])).unchanged).toEqual([DAY1, DAY2]);
    const again = await exportSource(target, ['--from', 'ga4', DIR, '--reread']);
    expect(again.totals).toMatchObject({ staged: 0, alreadyStaged: 71, rejected: 5 });
  });

  it('names the file, the line and the field of every reject', async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'ga4', DIR]);
    expect((await rejectsOf(target)).map((r) => [r.path, r.line, r.reason, r.field])).toEqual([
      [DAY2, 14, 'missing_distinct_id', 'user_id, user_pseudo_id'],
      [DAY2, 15, 'bad_properties', 'event_params'],
      [DAY2, 16, 'bad_timestamp', 'event_timestamp'],
      [DAY2, 17, 'missing_event', 'event_name'],
      [DAY2, 18, 'bad_json', ''],
    ]);
  });

  it('stages each row as PostHog would have captured it, checked against the source rows', async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'ga4', DIR], { TZ: 'Asia/Tokyo' });
    const events = readStagedEvents(target.staging);
    const sources = new Map(sourceRows().map((s) => [`${s.path}:${s.line}`, s.row]));
    const names: Obj = { page_view: '$pageview', screen_view: '$screen' };
    for (const event of events) {
      const row = sources.get(`${event.source}:${event.line}`)!;
      expect(event.event).toBe(names[row.event_name as string] ?? row.event_name);
      expect(event.distinct_id).toBe(row.user_id ?? row.user_pseudo_id);
      // Every microsecond GA4 wrote.
      const micros = BigInt(row.event_timestamp as string);
      expect(event.timestamp).toBe(formatTimestamp(Number(micros / 1000n), Number(micros % 1000n)));
      if (event.event === '$pageview')
        expect(event.properties).toMatchObject({ $current_url: expect.stringMatching(/^https:\/\/shop\.example\.com\//), $host: 'shop.example.com', $ga_session_id: expect.any(Number) });
      if (event.event === '$screen') expect(event.properties).toMatchObject({ $screen_name: expect.any(String), $os: 'iOS', firebase_screen_id: '-3820393876329286712' });
      if (row.user_id) expect(event.properties.$set).toMatchObject({ crm_score: '9007199254740993' }); // beyond 2^53: its exact digits
      expect(event.properties.$session_id).toBe(ga4SessionId(row.user_pseudo_id, gaSessionIdOf(row)));
    }
    expect([...new Set(events.map((e) => e.event))].sort()).toEqual(['$pageview', '$screen', 'first_visit', 'purchase', 'scroll', 'select_content', 'session_start', 'user_engagement']);
    // Two events of one bundle at one microsecond, without batch_event_index, differ by their parameters: both staged.
    expect(
      events
        .filter((e) => e.event === 'select_content')
        .map((e) => e.properties.item_id)
        .sort(),
    ).toEqual(['SKU-1', 'SKU-2']);
    const purchase = events.find((e) => e.event === 'purchase')!;
    expect(purchase.properties).toMatchObject({ currency: 'EUR', ecommerce: { total_item_quantity: expect.any(Number) }, items: [{ item_id: 'SKU-1', item_params: { color: 'rot' } }] });
  });

  it('refuses --timezone: GA4 times are UTC microseconds', async () => {
    const target = stagingIn(tempDir());
    const result = await runCli(['export-source', '--from', 'ga4', DIR, '--timezone', 'Europe/Paris', '--staging', target.staging], { cwd: target.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--timezone does not apply to --from ga4');
  });

  it('imports into the sandbox: user properties on the person, first-touch source set once', async () => {
    const sandbox = await sandboxAt();
    const target = stagingIn(tempDir());
    const config = writeSandboxConfig(target.dir, sandbox);
    const staged = await exportSource(target, ['--from', 'ga4', DIR]);
    const result = await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir });
    expect(result.code, result.stderr).toBe(0);
    expect((sandbox.store.db.prepare('SELECT count(*) AS n FROM events WHERE team_id = 1').get() as { n: number }).n).toBe(staged.totals.staged);

    const identified = sourceRows().find((s) => s.row.user_id === 'crm-1000')!.row;
    const row = sandbox.store.db.prepare("SELECT p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.team_id = 1 AND d.distinct_id = 'crm-1000'").get() as {
      properties: string;
    };
    const person = withoutGeoip(JSON.parse(row.properties) as Obj);
    expect(person).toMatchObject({ signup_year: 2024, crm_score: '9007199254740993', ga4_first_touch_time: expect.any(String) });
    const source = (identified.traffic_source as Obj).source;
    expect(person.$initial_utm_source).toBe(source === '(direct)' ? undefined : source);

    // Sessions without --sessionize: one per user_pseudo_id and ga_session_id, filed at the session's start.
    const expected = new Map<string, { start: string; events: number }>();
    for (const { row } of sourceRows()) {
      const id = ga4SessionId(row.user_pseudo_id, gaSessionIdOf(row));
      if (id !== undefined) expected.set(id, { start: new Date(Number(gaSessionIdOf(row)) * 1000).toISOString(), events: 0 });
    }
    for (const event of readStagedEvents(target.staging)) {
      const id = event.properties.$session_id as string | undefined;
      if (id !== undefined) expected.get(id)!.events++;
    }
    expect(expected.size).toBe(10);
    const sessions = sessionsOf(sandbox.store, 1);
    expect(sessions.map((s) => [s.sessionId, s.sessionStart, s.eventCount]).sort()).toEqual([...expected].map(([id, s]) => [id, s.start, s.events]).sort());
    for (const session of sessions) expect(v7Time(session.sessionId)).toBe(session.sessionStart);
  });

  it("--sessionize still gives sessions to the events without ga_session_id, and leaves GA4's alone", async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'ga4', DIR, '--sessionize', '30']);
    const sources = new Map(sourceRows().map((s) => [`${s.path}:${s.line}`, s.row]));
    const events = readStagedEvents(target.staging).filter((e) => e.source !== '');
    const computed = events.filter((e) => gaSessionIdOf(sources.get(`${e.source}:${e.line}`)!) === undefined);
    expect(computed.length).toBeGreaterThan(0);
    for (const event of events) {
      const row = sources.get(`${event.source}:${event.line}`)!;
      const ga4 = ga4SessionId(row.user_pseudo_id, gaSessionIdOf(row));
      if (ga4 !== undefined) expect(event.properties.$session_id).toBe(ga4);
      else expect(event.properties.$session_id).toBe(computedSessionId(event.distinct_id, Date.parse(v7Time(event.properties.$session_id as string))));
    }
  });
});
