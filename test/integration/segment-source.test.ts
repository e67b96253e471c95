/**
 * `export-source --from segment` on fixtures/segment (the raw archive's gzipped day file under
 * segment-logs/<source>/<day>/, and a plain JSON-lines file with redelivered calls), through the
 * built CLI, then imported into a real sandbox: persons merged, the company group made.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { exportSource, rejectsOf, stagingIn, statusOf } from '../helpers/export-source.js';
import { FIXTURES, runCli } from '../helpers/run-cli.js';
import { useSandbox, withoutGeoip, writeSandboxConfig } from '../helpers/sandbox.js';
import { readStagedEvents, type StagedRow } from '../helpers/staged-events.js';
import { FAST, readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();
const DIR = join(FIXTURES, 'segment');
const DAY_DIR = join(DIR, 'segment-logs', 'Qz8mK2pL0a', '1756684800000');
const ARCHIVE = join(DAY_DIR, readdirSync(DAY_DIR)[0]!);
const PLAIN = join(DIR, 'raw-2025-09-02.jsonl');

type Obj = Record<string, unknown>;

/** Every parseable call of the fixtures, by messageId. */
function sourceCalls(): Map<string, Obj> {
  const calls = new Map<string, Obj>();
  const text = gunzipSync(readFileSync(ARCHIVE)).toString('utf8') + readFileSync(PLAIN, 'utf8');
  for (const line of text.split('\n')) {
    try {
      const call = JSON.parse(line) as Obj;
      if (typeof call.messageId === 'string') calls.set(call.messageId, call);
    } catch {
      // The fixture's truncated line.
    }
  }
  return calls;
}

function kindsOf(staging: string): Map<string, number> {
  return readStaging(staging, (db) => new Map((db.prepare('SELECT event, kind FROM events GROUP BY event, kind').all() as Array<{ event: string; kind: number }>).map((r) => [r.event, r.kind])));
}

function personOf(sandbox: RunningSandbox, distinctId: string): { id: number; properties: Obj; identified: boolean } | undefined {
  const row = sandbox.store.db
    .prepare('SELECT p.id, p.properties, p.is_identified FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.team_id = 1 AND d.distinct_id = ?')
    .get(distinctId) as { id: number; properties: string; is_identified: number } | undefined;
  return row && { id: row.id, properties: withoutGeoip(JSON.parse(row.properties) as Obj), identified: row.is_identified === 1 };
}

describe('export-source --from segment', () => {
  it('stages every call type from the archive; redelivered calls and a second run stage nothing new', async () => {
    const target = stagingIn(tempDir());
    const first = await exportSource(target, ['--from', 'segment', ARCHIVE]);
    expect(first.totals).toMatchObject({ rowsRead: 59, staged: 50, rejected: 9 });
    const plain = await exportSource(target, ['--from', 'segment', PLAIN]);
    expect(plain.totals).toMatchObject({ rowsRead: 17, staged: 14, alreadyStaged: 3 }); // Segment delivered three calls twice

    const again = await exportSource(target, ['--from', 'segment', DIR, '--reread']);
    expect(again.files.map((f: { path: string }) => f.path)).toEqual([PLAIN, ARCHIVE]); // any .gz name is read in a directory
    expect(again.totals).toMatchObject({ staged: 0, alreadyStaged: 64 + 3, rejected: 9 });
    const status = await statusOf(target);
    expect([status.events.count, status.persons.count, status.groups.count]).toEqual([50, 11, 3]);
    expect(Object.fromEntries(kindsOf(target.staging))).toMatchObject({ $pageview: 0, $screen: 0, 'Order Completed': 0, $identify: 1, $create_alias: 1, $groupidentify: 2 });
  });

  it('names the file, the line and the field of every reject', async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'segment', DIR]);
    const rejects = await rejectsOf(target);
    expect(rejects.map((r) => [r.path, r.line, r.reason, r.field])).toEqual([
      [ARCHIVE, 18, 'missing_event', 'type'],
      [ARCHIVE, 19, 'bad_value', 'type'],
      [ARCHIVE, 20, 'missing_timestamp', 'timestamp'],
      [ARCHIVE, 21, 'bad_properties', 'properties'],
      [ARCHIVE, 22, 'missing_event', 'event'],
      [ARCHIVE, 23, 'timestamp_without_zone', 'timestamp'],
      [ARCHIVE, 24, 'missing_group_key', 'groupId'],
      [ARCHIVE, 25, 'missing_distinct_id', 'userId, anonymousId'],
      [ARCHIVE, 26, 'bad_json', ''],
    ]);
    expect(rejects[1]!.message).toBe('type "batch" is not a Segment call (track, page, screen, identify, group, alias)');
  });

  it('stages each call as PostHog would have received it, checked against the source lines', async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'segment', DIR], { TZ: 'America/Los_Angeles' });
    const calls = sourceCalls();
    const events = readStagedEvents(target.staging);
    const names: Record<string, (call: Obj) => string> = {
      track: (c) => String(c.event),
      page: () => '$pageview',
      screen: () => '$screen',
      identify: () => '$identify',
      alias: () => '$create_alias',
      group: () => '$groupidentify',
    };
    let checked = 0;
    for (const event of events) {
      const call = calls.get(event.properties.segment_message_id as string);
      if (call === undefined) continue; // the call without a messageId
      checked++;
      expect(event.event).toBe(names[call.type as string]!(call));
      expect(event.timestamp).toBe(new Date(call.timestamp as string).toISOString());
      const expectedId = call.type === 'group' ? `$company_${String(call.groupId)}` : (call.userId ?? call.anonymousId);
      expect(event.distinct_id).toBe(expectedId);
      expect(JSON.stringify(event.properties)).not.toMatch(/receivedAt|sentAt|originalTimestamp|wk_fixture/);
    }
    expect(checked).toBe(events.length - 1);
    const byName = (name: string): StagedRow[] => events.filter((e) => e.event === name);
    expect(byName('$identify').filter((e) => e.properties.$anon_distinct_id !== undefined)).toHaveLength(9);
    expect(byName('$identify').find((e) => e.distinct_id === 'anon-newsletter-7')!.properties).toMatchObject({ $set: { newsletter: true } });
    expect(byName('$create_alias')[0]).toMatchObject({ distinct_id: 'ana@example.com', properties: { alias: 'legacy-42' } });
    expect(byName('$groupidentify')[0]!.properties).toMatchObject({ $group_type: 'company', $group_key: 'acme-gmbh', $group_set: { name: 'Acme GmbH' } });
    expect(byName('$pageview').every((e) => typeof e.properties.$current_url === 'string' && e.properties.$host === 'shop.example.com')).toBe(true);
    expect(byName('$screen').every((e) => typeof e.properties.$screen_name === 'string' && e.properties.$os === 'iOS')).toBe(true);
    expect(byName('Order Completed').some((e) => (e.properties.$groups as Obj | undefined)?.company === 'acme-gmbh')).toBe(true);
    expect(byName('Plan Changed')[0]!.timestamp).toBe('2025-09-01T10:00:03.000Z'); // written with +02:00
  });

  it('--segment-group-type names the group type; other formats refuse the flag', async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'segment', DIR, '--segment-group-type', 'account']);
    const groups = readStagedEvents(target.staging).filter((e) => e.event === '$groupidentify');
    expect(groups.map((e) => [e.distinct_id, e.properties.$group_type])).toEqual([
      ['$account_acme-gmbh', 'account'],
      ['$account_acme-gmbh', 'account'],
      ['$account_acme-gmbh', 'account'],
    ]);
    const refused = await runCli(['export-source', '--from', 'jsonl', PLAIN, '--segment-group-type', 'account', '--staging', target.staging], { cwd: target.dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--segment-group-type applies to --from segment only');
  });

  it('stages a time written without a zone when --timezone is added, and only that row is new', async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'segment', ARCHIVE]);
    const zoned = await exportSource(target, ['--from', 'segment', ARCHIVE, '--timezone', 'Europe/Berlin']);
    expect(zoned.totals).toMatchObject({ staged: 1, alreadyStaged: 50, rejected: 8 });
    expect(readStagedEvents(target.staging).find((e) => e.event === 'Broken')?.timestamp).toBe('2025-09-01T08:00:00.000Z');
  });

  it('imports into the sandbox: visitors merged into their users, the alias merged, the company group made', async () => {
    const sandbox = await sandboxAt();
    const target = stagingIn(tempDir());
    const config = writeSandboxConfig(target.dir, sandbox);
    await exportSource(target, ['--from', 'segment', DIR]);
    const result = await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir });
    expect(result.code, result.stderr).toBe(0);

    const calls = [...sourceCalls().values()];
    const anaIdentify = calls.find((c) => c.type === 'identify' && c.userId === 'ana@example.com')!;
    const ana = personOf(sandbox, 'ana@example.com')!;
    expect(ana.properties).toMatchObject(anaIdentify.traits as Obj);
    expect(personOf(sandbox, anaIdentify.anonymousId as string)?.id).toBe(ana.id); // her anonymous page views are hers
    expect(personOf(sandbox, 'legacy-42')?.id).toBe(ana.id);
    expect(ana.identified).toBe(true);
    expect(personOf(sandbox, 'anon-newsletter-7')).toMatchObject({ properties: { newsletter: true }, identified: false }); // linked to no one
    const group = sandbox.store.db.prepare("SELECT group_properties FROM groups WHERE team_id = 1 AND group_key = 'acme-gmbh'").get() as { group_properties: string };
    expect(JSON.parse(group.group_properties)).toEqual({ name: 'Acme GmbH', plan: 'enterprise', employees: 120 });
  });
});
