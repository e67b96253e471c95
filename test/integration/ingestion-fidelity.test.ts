/**
 * What lands is what the source meant, on one migration driven through the built CLI into the
 * sandbox (which models PostHog's GeoIP, persons-on-events and merges): no row located at the
 * importing machine, source addresses kept, each event stored with its person's and groups'
 * properties from the users and companies files, final persons equal to the users file although
 * events carry older `$set`s, and each of PostHog's ingestion rules a reject or a warning with
 * its line while the good rows go through.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventsWithCurrentPerson, personOfDistinctId, type IngestedEvent } from '../../src/sandbox/capture/ingested-data.js';
import { sandboxLocation } from '../../src/sandbox/capture/sandbox-geoip.js';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { FAST, readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();

type Obj = Record<string, unknown>;

const line = (event: string, distinctId: string, timestamp: string, properties: Obj = {}): string => JSON.stringify({ event, distinct_id: distinctId, timestamp, properties });

/** The source: line numbers matter (rejects and warnings name them). */
const EVENTS = [
  /* 1 */ line('signed_up', 'u1', '2025-03-01T10:00:00Z', { plan: 'free', $set: { plan: 'free' }, $groups: { company: 'acme' }, utm_content: 42, price: 10 }),
  /* 2 */ line('viewed', 'u2', '2025-03-02T10:00:00Z', { $groups: { company: 'acme' }, price: '10', $ip: '203.0.113.7' }),
  /* 3 */ line('viewed', 'u2', '2025-03-03T10:00:00Z', { $set_once: { first_source: null, first_page: '/home' } }),
  /* 4 */ line('viewed', 'anon-3', '2025-03-03T11:00:00Z', { $set: { plan: 'trial' } }),
  /* 5 */ line('viewed', 'null', '2025-03-04T10:00:00Z'),
  /* 6 */ line('viewed', 'undefined', '2025-03-04T11:00:00Z'),
  /* 7 */ line('$identify', 'u4', '2025-03-04T12:00:00Z', { $anon_distinct_id: 'anonymous' }),
  /* 8 */ line('viewed', 'x'.repeat(201), '2025-03-05T09:00:00Z'),
  /* 9 */ line('bought', 'u2', '2025-03-05T10:00:00Z', { amount: '12,5' }),
  /* 10 */ line('bought', 'u1', '2025-03-05T11:00:00Z', { amount: '12.5', $groups: { company: 'beta' } }),
  /* 11 */ line('viewed', 'u3', '2025-03-06T10:00:00Z', { $groups: { company: 'beta' } }),
];
const USERS = [
  { distinct_id: 'u1', plan: 'pro', email: 'u1@example.com' },
  { distinct_id: 'u2', plan: 'team' },
  { distinct_id: 'u3', anon_distinct_id: 'anon-3', plan: 'enterprise' },
  { distinct_id: 'u5', $set: { notes: 'n'.repeat(530 * 1024) } },
];
const COMPANIES = 'group_key,name,employees\nacme,Acme,10\nbeta,Beta,20\n';
const GEO_KEY = /^\$(initial_)?geoip_(?!disable$)/;

async function cli(dir: string, args: string[], code = 0) {
  const result = await runCli(args, { cwd: dir });
  expect(result.code, result.stderr).toBe(code);
  return result;
}

/** The events.jsonl, users.jsonl, companies.csv and map file of the migration, staged. */
async function stageMigration(dir: string): Promise<string[]> {
  writeFileSync(join(dir, 'events.jsonl'), EVENTS.join('\n') + '\n');
  writeFileSync(join(dir, 'users.jsonl'), USERS.map((u) => JSON.stringify(u)).join('\n') + '\n');
  writeFileSync(join(dir, 'companies.csv'), COMPANIES);
  writeFileSync(join(dir, 'map.json'), JSON.stringify({ types: { amount: 'number' } }));
  const staging = ['--staging', join(dir, 'm.db')];
  await cli(dir, ['export-source', '--from', 'jsonl', 'events.jsonl', '--map', 'map.json', ...staging, '--quiet']);
  await cli(dir, ['identify-users', '--from', 'jsonl', 'users.jsonl', ...staging, '--quiet']);
  await cli(dir, ['identify-groups', '--from', 'csv', 'companies.csv', '--group-type', 'company', ...staging, '--quiet']);
  return staging;
}

function withoutGeo(properties: Obj): Obj {
  return Object.fromEntries(Object.entries(properties).filter(([key]) => !GEO_KEY.test(key)));
}

function eventsOf(sandbox: RunningSandbox, teamId: number): IngestedEvent[] {
  return eventsWithCurrentPerson(sandbox.store, teamId);
}

describe('what lands is what the source meant', () => {
  it('geo, person and group snapshots, final persons, rejects and warnings on one migration', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = await stageMigration(dir);
    const imported = await cli(dir, ['import', '--project', 'test', '--config', config, ...staging, ...FAST]);
    expect(imported.stdout).toContain('15 of 15 staged events delivered');
    expect(imported.stdout).toContain("2 users-file updates sent again after the events (re-assertions), as events carried older $set values: each person ends with the users file's values.");
    const events = eventsOf(sandbox, 1);
    const run = readStaging(join(dir, 'm.db'), (db) => (db.prepare("SELECT value FROM meta WHERE key = 'import_run'").get() as { value: string }).value);

    // Order: group updates, person updates, events (days in parallel), then the users file's values again.
    const turn = (name: string): number => ({ $groupidentify: 1, $identify: 2, $set: 4 })[name] ?? 3;
    expect(events.map((e) => e.event).sort((a, b) => turn(a) - turn(b))).toEqual(events.map((e) => e.event));
    expect(events.map((e) => turn(e.event))).toEqual([1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4]);

    // Provenance on every row.
    for (const e of events) expect(e.properties).toMatchObject({ $import_run: run });
    expect(new Set(events.map((e) => e.properties.$import_source))).toEqual(new Set(['jsonl', 'identify-users', 'identify-groups']));

    // Geo: nothing located at this machine; the source's own address kept, and used.
    const here = sandboxLocation('127.0.0.1')!;
    const source = sandboxLocation('203.0.113.7')!;
    for (const e of events) {
      const located = Object.keys(e.properties).filter((k) => GEO_KEY.test(k));
      // Only the event with its own address is located, and only u2's person, from that address.
      expect(located.length > 0, `${e.event} ${e.distinctId}`).toBe(e.properties.$ip === '203.0.113.7');
      if (located.length > 0) expect(e.properties.$geoip_latitude).toBe(source.latitude);
      const person = Object.keys(e.personProperties).filter((k) => GEO_KEY.test(k));
      if (e.distinctId !== 'u2') expect(person, `${e.event} ${e.distinctId}`).toEqual([]);
      else if (person.length > 0) expect(e.personProperties.$geoip_latitude).toBe(source.latitude);
    }
    expect(events.filter((e) => e.properties.$ip === '203.0.113.7')).toHaveLength(1);
    for (const id of ['u1', 'u3', 'anon-3', 'null']) {
      expect(
        Object.keys(personOfDistinctId(sandbox.store, 1, id)!.properties).filter((k) => GEO_KEY.test(k)),
        id,
      ).toEqual([]);
    }
    const u2 = personOfDistinctId(sandbox.store, 1, 'u2')!.properties;
    expect(u2.$geoip_latitude).toBe(source.latitude);
    expect(u2.$geoip_latitude).not.toBe(here.latitude);

    // Snapshots: u2's events (no $set of their own) carry the users file's values; groups the companies file's.
    const byLine = (event: string, distinctId: string, timestamp: string): IngestedEvent => events.find((e) => e.event === event && e.distinctId === distinctId && e.timestamp.startsWith(timestamp))!;
    // A person's events go in time order (the next day's $set_once is not seen the day before).
    expect(withoutGeo(byLine('viewed', 'u2', '2025-03-02').personProperties)).toEqual({ plan: 'team' });
    expect(withoutGeo(byLine('viewed', 'u2', '2025-03-03').personProperties)).toEqual({ plan: 'team', first_page: '/home' });
    expect(byLine('viewed', 'u2', '2025-03-02').groupProperties[0]).toEqual({ name: 'Acme', employees: 10 });
    expect(byLine('signed_up', 'u1', '2025-03-01').groupProperties[0]).toEqual({ name: 'Acme', employees: 10 });
    expect(byLine('bought', 'u1', '2025-03-05').groupProperties[0]).toEqual({ name: 'Beta', employees: 20 });
    expect(byLine('viewed', 'u3', '2025-03-06').groupProperties[0]).toEqual({ name: 'Beta', employees: 20 });
    // An event's own $set applies to its snapshot, as in PostHog: u1's signup says free.
    expect(byLine('signed_up', 'u1', '2025-03-01').personProperties).toEqual({ plan: 'free', email: 'u1@example.com' });

    // Final persons: the users file's values, although u1's and anon-3's events carried older $sets.
    expect(personOfDistinctId(sandbox.store, 1, 'u1')!.properties).toEqual({ plan: 'pro', email: 'u1@example.com' });
    expect(personOfDistinctId(sandbox.store, 1, 'u3')).toMatchObject({ properties: { plan: 'enterprise' }, distinctIds: ['anon-3', 'u3'] });
    expect(withoutGeo(u2)).toEqual({ plan: 'team', first_page: '/home' });

    // Types: utm_* as text, the map file's number; a $set_once null never sent.
    expect(byLine('signed_up', 'u1', '2025-03-01').properties.utm_content).toBe('42');
    expect(byLine('bought', 'u1', '2025-03-05').properties.amount).toBe(12.5);
    expect(byLine('viewed', 'u2', '2025-03-03').properties.$set_once).not.toHaveProperty('first_source');

    // Rejects with file:line; warnings with their first lines.
    const rejects = await cli(dir, ['rejects', ...staging]);
    expect(rejects.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^events\.jsonl:7 illegal_distinct_id \$anon_distinct_id: PostHog refuses to merge on the distinct_id "anonymous"/),
      expect.stringMatching(/^events\.jsonl:8 distinct_id_too_long distinct_id: /),
      'events.jsonl:9 bad_property_type amount: the map file makes "amount" a number, but "12,5" is not a number',
      expect.stringMatching(/^users\.jsonl:4 person_properties_too_large \$set: the person's properties are 530 KB/),
    ]);
    const warnings = await cli(dir, ['rejects', '--warnings', ...staging]);
    expect(warnings.stdout).toContain('events.jsonl:5 illegal_distinct_id distinct_id: "null" on 1 event');
    expect(warnings.stdout).toContain('events.jsonl:6 illegal_distinct_id distinct_id: "undefined" on 1 event');
    expect(warnings.stdout).toContain('events.jsonl:1 property_type price: first number');
    expect(warnings.stdout).toContain('events.jsonl:2 property_type price: first string');

    const status = JSON.parse((await cli(dir, ['status', '--json', ...staging])).stdout);
    expect(status.rules).toMatchObject({
      geo: { fromIp: 3, off: 0, older: [] },
      groupTypes: [{ type: 'company', count: 6 }],
      illegalIds: { events: 2 },
      propertyConflicts: [
        {
          name: 'price',
          types: [
            { type: 'number', count: 1, line: 1 },
            { type: 'string', count: 1, line: 2 },
          ],
        },
      ],
      setOnceNullsDropped: 1,
      reassertions: { staged: 2, personsWithEventSets: 2 },
    });
    const text = (await cli(dir, ['status', ...staging])).stdout;
    expect(text).toContain('$set_once nulls dropped: 1');
    expect(text).toMatch(/Send order: group updates, person updates, events, re-assertions/);

    // --people-last, into prod: the events land before their persons and groups, with empty snapshots.
    const last = await cli(dir, ['import', '--project', 'prod', '--people-last', '--config', config, ...staging, ...FAST]);
    expect(last.stdout).toContain('Sent with --people-last: events before their person and group updates');
    const prod = eventsOf(sandbox, 2);
    const inProd = (event: string, distinctId: string, timestamp: string): IngestedEvent => prod.find((e) => e.event === event && e.distinctId === distinctId && e.timestamp.startsWith(timestamp))!;
    // u2's events in time order, each day on its own (two chunks, which may be in flight together):
    // the first sees nothing, the second only its own $set_once.
    const [first, second] = [inProd('viewed', 'u2', '2025-03-02'), inProd('viewed', 'u2', '2025-03-03')];
    expect([withoutGeo(first.personProperties), first.groupProperties[0]]).toEqual([{}, {}]);
    expect(withoutGeo(second.personProperties)).toEqual({ first_page: '/home' });
    expect(personOfDistinctId(sandbox.store, 2, 'u1')!.properties).toEqual({ plan: 'pro', email: 'u1@example.com' });
  });

  it('refuses more than 5 group types and recent events before sending anything; --no-geoip is a staging option', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = ['--staging', join(dir, 'm.db')];
    const recent = new Date(Date.now() - 3_600_000).toISOString();
    writeFileSync(join(dir, 'a.jsonl'), `${line('viewed', 'u1', '2025-03-01T10:00:00Z', { $ip: '203.0.113.7', $groups: { a: '1', b: '1', c: '1' } })}\n${line('viewed', 'u1', recent)}\n`);
    writeFileSync(join(dir, 'b.jsonl'), `${line('viewed', 'u2', '2025-03-01T11:00:00Z', { $groups: { d: '1', e: '1', f: '1' } })}\n`);
    await cli(dir, ['export-source', '--from', 'jsonl', 'a.jsonl', '--no-geoip', ...staging, '--quiet']);
    await cli(dir, ['export-source', '--from', 'jsonl', 'b.jsonl', ...staging, '--quiet']);

    const misplaced = await cli(dir, ['import', '--project', 'test', '--no-geoip', '--config', config, ...staging, ...FAST], 2);
    expect(misplaced.stderr).toContain('--no-geoip is an option of the staging commands (export-source, identify-users, identify-groups), not of import');

    const tooMany = await cli(dir, ['import', '--project', 'test', '--config', config, ...staging, ...FAST], 6);
    expect(tooMany.stderr).toMatch(/uses 6 group types, and PostHog takes at most 5 per project .*: a \(1 row, first at \S*a\.jsonl:1\), .*f \(1 row, first at \S*b\.jsonl:1\)/);
    const doctor = await cli(dir, ['doctor', '--project', 'test', '--config', config, ...staging], 10);
    expect(doctor.stdout).toMatch(/problem +ingestion-rules +the staging file uses 6 group types/);

    // Fewer group types: the recent event is then refused, unless --include-recent.
    writeFileSync(join(dir, 'b.jsonl'), `${line('viewed', 'u2', '2025-03-01T11:00:00Z', { $groups: { a: '2' } })}\n`);
    await cli(dir, ['export-source', '--from', 'jsonl', 'b.jsonl', '--replace-changed', ...staging, '--quiet']);
    const refused = await cli(dir, ['import', '--project', 'test', '--config', config, ...staging, ...FAST], 6);
    expect(refused.stderr).toContain(`1 staged event is from the last 48 hours (the newest at ${recent})`);
    expect(refused.stderr).toContain('--include-recent');
    expect(eventsOf(sandbox, 1)).toEqual([]);
    await cli(dir, ['import', '--project', 'test', '--include-recent', '--config', config, ...staging, ...FAST]);

    // --no-geoip: the event with its own address is not located either.
    const located = eventsOf(sandbox, 1).find((e) => e.properties.$ip === '203.0.113.7')!;
    expect(located.properties).toMatchObject({ $geoip_disable: true, $import_source: 'jsonl' });
    expect(Object.keys(located.properties).filter((k) => GEO_KEY.test(k))).toEqual([]);
  });
});
