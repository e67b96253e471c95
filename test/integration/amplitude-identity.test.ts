/**
 * Amplitude as its users knew it: anonymous events linked to the person who later logged in on
 * the same device, sessions PostHog's sessions table keeps, groups with their properties. Two
 * export files staged in reverse time order, imported into the sandbox, and what it stored
 * asserted the way PostHog's queries would see it (persons after merges, sessions, groups).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventsWithCurrentPerson, personOfDistinctId, sessionsOf } from '../../src/sandbox/capture/ingested-data.js';
import { runPasses } from '../../src/passes/run-passes.js';
import { markPassesPending } from '../../src/staging/pass-state.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { exportSource, stagingIn, statusOf, type Staging } from '../helpers/export-source.js';
import { runCli } from '../helpers/run-cli.js';
import { useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { FAST } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();

const DAY = Date.UTC(2025, 8, 1);
const at = (hh: number, mm: number): number => DAY + (hh * 60 + mm) * 60_000;
const amplitudeTime = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000');
/** One session number used on two devices: two sessions. */
const SESSION = at(10, 0);
const ZEROS = '00000000-0000-0000-0000-000000000000';

let uuids = 0;
function event(ms: number, fields: Record<string, unknown>): Record<string, unknown> {
  uuids++;
  return {
    event_type: 'Viewed',
    event_time: amplitudeTime(ms),
    uuid: `4b1393cc-b7f8-431b-8f05-${String(uuids).padStart(12, '0')}`,
    user_id: null,
    session_id: -1,
    event_properties: {},
    user_properties: {},
    groups: {},
    group_properties: {},
    ...fields,
  };
}

const acme = (plan: string) => ({ groups: { company: ['acme'] }, group_properties: { company: { acme: { name: 'Acme', plan } } } });

/** The earlier file: logins on d1 and d3, a device shared by two users, two keys for one group type. */
function earlier(): Array<Record<string, unknown>> {
  return [
    event(at(9, 0), { device_id: 'd3' }),
    event(at(9, 10), { device_id: 'd3', user_id: 'bo', ...acme('free'), groups: { company: ['acme', 'globex'] } }),
    event(at(10, 0), { device_id: 'd1', session_id: SESSION }),
    event(at(10, 1), { device_id: 'd1', session_id: SESSION }),
    event(at(10, 2), { device_id: 'd1', user_id: 'ana', session_id: SESSION, ...acme('free') }),
    event(at(10, 5), { device_id: 'd1', user_id: 'ana', session_id: SESSION, ...acme('free') }),
    event(at(11, 0), { device_id: 'd3', user_id: 'cy' }),
    event(at(11, 30), { device_id: 'd2', user_id: 'ana', session_id: SESSION }),
  ];
}

/** The later file: ana's second device, a placeholder device, a kiosk, and a change of group properties. */
function later(): Array<Record<string, unknown>> {
  return [
    event(at(12, 0), { device_id: 'd2', session_id: SESSION }),
    event(at(12, 1), { device_id: 'd2', user_id: 'ana', session_id: SESSION, ...acme('pro') }),
    event(at(13, 0), { device_id: ZEROS }),
    event(at(13, 5), { device_id: ZEROS, user_id: 'dee' }),
    event(at(14, 0), { device_id: 'kiosk' }),
    ...['k1', 'k2', 'k3', 'k4', 'k5', 'k6'].map((user, i) => event(at(14, 1 + i), { device_id: 'kiosk', user_id: user })),
  ];
}

function write(dir: string, name: string, records: Array<Record<string, unknown>>): string {
  const file = join(dir, name);
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

async function importTest(target: Staging, sandbox: RunningSandbox): Promise<void> {
  const config = writeSandboxConfig(target.dir, sandbox);
  const result = await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir });
  expect(result.code, result.stderr).toBe(0);
}

const links = (staging: string) =>
  readStagedEvents(staging)
    .filter((e) => e.event === '$identify')
    .map((e) => ({ user: e.distinct_id, device: e.properties.$anon_distinct_id, timestamp: e.timestamp }))
    .sort((a, b) => a.device!.toString().localeCompare(b.device!.toString()));

describe('Amplitude: identity links, sessions and groups', () => {
  it('links anonymous devices to their first user, whatever the order the files come in, and PostHog merges them', async () => {
    const target = stagingIn(tempDir());
    const laterFile = write(target.dir, 'later.json', later());
    const earlierFile = write(target.dir, 'earlier.json', earlier());

    const first = await exportSource(target, ['--from', 'amplitude', laterFile]);
    expect(first.passes.identity).toMatchObject({ staged: 1, totals: { links: 1, kiosks: 1, placeholders: 1 } });
    expect(links(target.staging)).toEqual([{ user: 'ana', device: 'd2', timestamp: '2025-09-01T12:00:59.999Z' }]);

    const second = await exportSource(target, ['--from', 'amplitude', earlierFile]);
    expect(second.passes.identity).toMatchObject({ staged: 2, moved: 1, withdrawn: 0, totals: { links: 3, shared: 1, kiosks: 1, placeholders: 1 } });
    expect(second.passes.identity.examples.shared).toEqual([{ device: 'd3', users: 2, firstUser: 'bo', linkUser: 'bo' }]);
    expect(second.passes.identity.examples.kiosk).toEqual([{ device: 'kiosk', users: 6, firstUser: 'k1', linkUser: null }]);
    expect(links(target.staging)).toEqual([
      { user: 'ana', device: 'd1', timestamp: '2025-09-01T10:01:59.999Z' },
      { user: 'ana', device: 'd2', timestamp: '2025-09-01T11:29:59.999Z' },
      { user: 'bo', device: 'd3', timestamp: '2025-09-01T09:09:59.999Z' },
    ]);
    expect(second.totals.notes.several_group_keys).toEqual({ count: 1, examples: ['company: acme, globex'] });

    const again = await exportSource(target, ['--from', 'amplitude', earlierFile, laterFile]);
    expect(again.totals.staged).toBe(0);
    expect(again.passes.identity).toMatchObject({ staged: 0, moved: 0, withdrawn: 0 });
    expect(again.passes.groups).toMatchObject({ staged: 0, withdrawn: 0 });
    const status = await statusOf(target);
    expect(status.persons.count).toBe(3);
    expect(status.passes).toMatchObject({ pendingSince: null, summary: { identity: { links: 3, shared: 1, kiosks: 1, placeholders: 1 }, groups: { updates: 2, groups: 1 } } });

    const sandbox = await sandboxAt();
    await importTest(target, sandbox);
    const person = (id: string) => {
      const found = personOfDistinctId(sandbox.store, 1, id);
      expect(found, id).toBeDefined();
      return found!.id;
    };
    expect(person('d1')).toBe(person('ana'));
    expect(person('d2')).toBe(person('ana'));
    expect(person('d3')).toBe(person('bo'));
    expect(person('cy')).not.toBe(person('bo'));
    expect(person(ZEROS)).not.toBe(person('dee'));
    expect(new Set(['kiosk', 'k1', 'k2', 'k6'].map(person)).size).toBe(4);
    // In one query, the anonymous events and ana's later ones belong to one person.
    const events = eventsWithCurrentPerson(sandbox.store, 1).filter((e) => e.event === 'Viewed');
    const anas = new Set(events.filter((e) => ['d1', 'd2', 'ana'].includes(e.distinctId)).map((e) => e.currentPersonId));
    expect(anas.size).toBe(1);
  });

  it('gives each device its session of the same number, keeps none for -1, and stages one group update per change', async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'amplitude', write(target.dir, 'earlier.json', earlier()), write(target.dir, 'later.json', later())]);
    const sandbox = await sandboxAt();
    await importTest(target, sandbox);

    const sessions = sessionsOf(sandbox.store, 1);
    expect(sessions).toHaveLength(2);
    for (const s of sessions) expect(s.sessionStart).toBe(new Date(SESSION).toISOString());
    expect(sessions.map((s) => s.eventCount).sort()).toEqual([3, 4]);
    const stored = eventsWithCurrentPerson(sandbox.store, 1).filter((e) => e.event === 'Viewed');
    for (const e of stored) {
      if (e.properties.$amplitude_session_id === undefined) expect(e.properties).not.toHaveProperty('$session_id');
    }
    const twoKeys = stored.find((e) => e.distinctId === 'bo')!;
    expect(twoKeys.properties.$groups).toEqual({ company: 'acme' });

    const updates = readStagedEvents(target.staging).filter((e) => e.event === '$groupidentify');
    // Sent like every other row: never located at the importing machine, and found by the staging file's $import_run.
    const stamp = { $geoip_disable: true, $import_source: 'group-updates', $import_run: readStagedEvents(target.staging)[0]!.properties.$import_run };
    expect(stamp.$import_run).toEqual(expect.any(String));
    expect(updates.map((u) => [u.timestamp, u.properties])).toEqual([
      ['2025-09-01T09:10:00.000Z', { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', plan: 'free' }, ...stamp }],
      ['2025-09-01T12:01:00.000Z', { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', plan: 'pro' }, ...stamp }],
    ]);
    for (const link of readStagedEvents(target.staging).filter((e) => e.event === '$identify' && e.source === ''))
      expect(link.properties).toMatchObject({ ...stamp, $import_source: 'identity-links' });
    const group = sandbox.store.db.prepare("SELECT group_properties FROM groups WHERE team_id = 1 AND group_key = 'acme'").get() as { group_properties: string };
    expect(JSON.parse(group.group_properties)).toEqual({ name: 'Acme', plan: 'pro' });
    expect(sandbox.store.db.prepare("SELECT count(*) AS n FROM groups WHERE group_key = 'globex'").get()).toEqual({ n: 0 });
  });

  it('keeps a delivered link when a later file finds an earlier user for its device, and withdraws links not yet delivered', async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'amplitude', write(target.dir, 'earlier.json', earlier())]);
    await importTest(target, await sandboxAt());

    // An earlier user on d1 (delivered link to ana) and five more users on d3 (a kiosk now; its link to bo was delivered too).
    const newer = [event(at(8, 0), { device_id: 'd1', user_id: 'eve' }), ...['u1', 'u2', 'u3', 'u4'].map((u, i) => event(at(15, i), { device_id: 'd3', user_id: u }))];
    const result = await exportSource(target, ['--from', 'amplitude', write(target.dir, 'newer.json', newer)]);
    expect(result.passes.identity).toMatchObject({ staged: 0, withdrawn: 0, totals: { links: 3, keptDelivered: 2, kiosks: 1 } });
    expect(links(target.staging).map((l) => [l.user, l.device])).toEqual([
      ['ana', 'd1'],
      ['ana', 'd2'],
      ['bo', 'd3'],
    ]);

    // Not yet delivered: a link to a device that turns into a kiosk is withdrawn.
    const fresh = stagingIn(tempDir());
    await exportSource(fresh, ['--from', 'amplitude', write(fresh.dir, 'earlier.json', earlier())]);
    const withdrawn = await exportSource(fresh, ['--from', 'amplitude', write(fresh.dir, 'newer.json', newer)]);
    expect(withdrawn.passes.identity).toMatchObject({ staged: 1, withdrawn: 2, totals: { links: 2, keptDelivered: 0 } });
    expect(links(fresh.staging).map((l) => [l.user, l.device])).toEqual([
      ['eve', 'd1'],
      ['ana', 'd2'],
    ]);
  });

  it('stages no links with --no-identity-links, and a limit of users per device of your choice', async () => {
    const target = stagingIn(tempDir());
    const file = write(target.dir, 'later.json', later());
    const none = await exportSource(target, ['--from', 'amplitude', '--no-identity-links', file]);
    expect(none.passes.identity.totals.links).toBe(0);
    expect(links(target.staging)).toEqual([]);

    const other = stagingIn(join(tempDir()));
    const six = await exportSource(other, ['--from', 'amplitude', '--max-users-per-device', '6', write(other.dir, 'later.json', later())]);
    expect(six.passes.identity).toMatchObject({ staged: 2, totals: { links: 2, kiosks: 0 } });
  });

  it('leaves the passes pending when a run dies before they finish: import refuses, the next staging run finishes them', async () => {
    const target = stagingIn(tempDir());
    const file = write(target.dir, 'earlier.json', earlier());
    await exportSource(target, ['--from', 'amplitude', file]);
    const before = links(target.staging);
    const store = StagingStore.open(target.staging);
    try {
      // Worked out again from nothing, the passes change nothing: they are idempotent.
      store.db.exec('DELETE FROM pass_state');
      const redone = runPasses(store, {}, 0);
      expect(redone.identity).toMatchObject({ staged: 0, withdrawn: 0, moved: 0 });
      expect(redone.groups).toMatchObject({ staged: 0, withdrawn: 0 });
      markPassesPending(store);
    } finally {
      store.close();
    }
    expect((await statusOf(target)).passes.pendingSince).toEqual(expect.any(String));
    const sandbox = await sandboxAt();
    const config = writeSandboxConfig(target.dir, sandbox);
    const refused = await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('did not finish: the identity links, group updates and session ids');

    const again = await exportSource(target, ['--from', 'amplitude', file]);
    expect(again.totals.staged).toBe(0);
    expect((await statusOf(target)).passes.pendingSince).toBeNull();
    expect(links(target.staging)).toEqual(before);
    await importTest(target, sandbox);
  });
});
