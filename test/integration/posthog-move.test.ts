/**
 * A PostHog project moved from one sandbox to another with the built CLI: events, persons
 * (merged ones too) and groups sent to A through posthog-node, staged from A with
 * `export-source --from posthog-api`, imported into B; every event, person and group of A is
 * in B as it was. Then kill -9 in the middle of a window: the same command again stages
 * nothing twice and nothing is missing, not even an event added to the window meanwhile (no
 * count or page comes back from PostHog's query cache). And where B numbers its group types otherwise than A,
 * an event keeps to its own groups (A's `$group_N` slots are not carried over).
 */
import { join } from 'node:path';
import { PostHog } from 'posthog-node';
import { describe, expect, it } from 'vitest';
import { sandboxPersonalKey } from '../../src/sandbox/api/management-seed.js';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { personsOf, posthogExportArgs, sendToSandbox, type SourceEvent, writeMoveConfig } from '../helpers/posthog-source.js';
import { runCli, startCli } from '../helpers/run-cli.js';
import { storedEvents, useSandbox, withoutGeoip } from '../helpers/sandbox.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { FAST } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxes = useSandbox();
const RULE_KEYS = ['$geoip_disable', '$import_source', '$import_run'];

function uuidOf(n: number): string {
  return `0190b000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** Sends a small project to A's project 1 with posthog-node: events over three days, an anonymous user merged into an identified one, two group types. */
async function fillSource(sandbox: RunningSandbox, events: number): Promise<void> {
  const token = sandbox.store.db.prepare('SELECT api_token FROM projects WHERE id = 1').pluck().get() as string;
  const client = new PostHog(token, { host: sandbox.url, historicalMigration: true, flushAt: 50, flushInterval: 0 });
  for (let i = 0; i < events; i++) {
    const distinctId = i < 5 ? 'anon-1' : ['ada', 'bob', 'cy'][i % 3]!;
    const timestamp = new Date(Date.UTC(2025, 2, 1) + i * 47 * 60_000 + 123);
    client.capture({
      uuid: uuidOf(i),
      distinctId,
      event: i % 4 === 0 ? '$pageview' : 'purchase',
      timestamp,
      properties: { n: i, big: '9007199254740993', $elements_chain: i % 4 === 0 ? 'a:href="/x"' : undefined },
    });
  }
  const day = (d: number) => new Date(Date.UTC(2025, 2, d, 12));
  client.capture({ uuid: uuidOf(9001), distinctId: 'ada', event: '$identify', timestamp: day(2), properties: { $anon_distinct_id: 'anon-1', $set: { email: 'ada@example.com', plan: 'pro' } } });
  client.capture({ uuid: uuidOf(9002), distinctId: 'bob', event: '$identify', timestamp: day(2), properties: { $set: { email: 'bob@example.com' }, $set_once: { first_seen: '2025-03-01' } } });
  client.capture({
    uuid: uuidOf(9003),
    distinctId: 'ada',
    event: '$groupidentify',
    timestamp: day(3),
    properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', seats: 12 } },
  });
  client.capture({ uuid: uuidOf(9004), distinctId: 'bob', event: '$groupidentify', timestamp: day(3), properties: { $group_type: 'team', $group_key: 'red', $group_set: { name: 'Red' } } });
  await client.shutdown();
}

function exportArgs(dir: string, config: string): string[] {
  return posthogExportArgs(dir, config, '2025-03-01', '2025-03-04');
}

function withoutRules(properties: Record<string, unknown>): Record<string, unknown> {
  const copy = Object.fromEntries(Object.entries(properties).filter(([key]) => !RULE_KEYS.includes(key)));
  const setOnce = copy.$set_once as Record<string, unknown> | undefined;
  if (setOnce !== undefined) copy.$set_once = Object.fromEntries(Object.entries(setOnce).filter(([, v]) => v !== null));
  return copy;
}

function groupsOf(sandbox: RunningSandbox): unknown[] {
  return sandbox.store.db
    .prepare(
      'SELECT t.group_type, g.group_key, g.group_properties FROM groups g JOIN group_types t ON t.team_id = g.team_id AND t.group_type_index = g.group_type_index WHERE g.team_id = 1 ORDER BY t.group_type, g.group_key',
    )
    .all()
    .map((row) => ({ ...(row as Record<string, unknown>), group_properties: JSON.parse((row as { group_properties: string }).group_properties) }));
}

describe('a PostHog project moved to another with export-source --from posthog-api', () => {
  it('puts every event, person and group of A into B as they were', async () => {
    const a = await sandboxes({ api: { query: { maxRows: 25 } } });
    const b = await sandboxes();
    const dir = tempDir();
    const config = writeMoveConfig(dir, a, b);
    await fillSource(a, 90);

    const staged = await runCli([...exportArgs(dir, config), '--json'], { cwd: dir });
    expect(staged.stderr).toBe('');
    expect(staged.code).toBe(0);
    const status = await runCli(['status', '--staging', join(dir, 'migration.db')], { cwd: dir });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('posthog-api:1@');
    expect(status.stdout + staged.stdout).not.toContain(sandboxPersonalKey(a.store, 'owner-all'));
    const imported = await runCli(['import', '--project', 'test', '--staging', join(dir, 'migration.db'), '--config', config, ...FAST], { cwd: dir });
    expect(imported.code).toBe(0);

    const inB = new Map(storedEvents(b, 1).map((e) => [e.uuid, e]));
    const fromA = storedEvents(a, 1);
    expect(fromA.length).toBe(94);
    for (const e of fromA) {
      const moved = inB.get(e.uuid);
      expect(moved, e.uuid).toBeDefined();
      expect([moved!.event, moved!.distinct_id, moved!.timestamp]).toEqual([e.event, e.distinct_id, e.timestamp]);
      expect(withoutRules(JSON.parse(moved!.properties) as Record<string, unknown>)).toEqual(withoutRules(JSON.parse(e.properties) as Record<string, unknown>));
    }

    const personsA = personsOf(a);
    const personsB = personsOf(b);
    expect(personsA.get('anon-1')!.person).toBe(personsA.get('ada')!.person);
    expect(personsB.get('anon-1')!.person).toBe(personsB.get('ada')!.person);
    for (const [id, person] of personsA) expect(withoutGeoip(personsB.get(id)!.properties), id).toEqual(withoutGeoip(person.properties));
    expect(groupsOf(b)).toEqual(groupsOf(a));
  });

  it('after kill -9 in the middle of a window, the same command stages every event once, and one added before the cursor meanwhile', async () => {
    let pages = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const a = await sandboxes({
      api: {
        query: {
          maxRows: 10,
          gate: async (query) => {
            if (query.startsWith('SELECT uuid') && ++pages === 3) await held;
          },
        },
      },
    });
    const dir = tempDir();
    const config = writeMoveConfig(dir, a);
    await fillSource(a, 60);

    const { child, done } = startCli(exportArgs(dir, config), { cwd: dir });
    for (let i = 0; i < 1000 && pages < 3; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    // Meanwhile an event reaches the window, before the cursor: the window's count and first
    // pages, answered before the kill, must not come back from PostHog's cache on the rerun.
    await sendToSandbox(a, [{ uuid: uuidOf(9999), event: 'late', distinct_id: 'ada', timestamp: '2025-03-01T00:00:00.050Z', properties: {} }]);
    release();

    const again = await runCli([...exportArgs(dir, config), '--json'], { cwd: dir });
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as { recovered: string[] }).recovered).toHaveLength(1);
    const events = readStagedEvents(join(dir, 'migration.db')).filter((e) => !e.source.includes('#'));
    expect(events).toHaveLength(65);
    expect(new Set(events.map((e) => e.uuid)).size).toBe(65);
    expect(events.map((e) => e.uuid)).toContain(uuidOf(9999));
  });

  it("where B numbers the group types otherwise, an event of company acme is not also of B's team acme", async () => {
    const a = await sandboxes();
    const b = await sandboxes();
    const dir = tempDir();
    const config = writeMoveConfig(dir, a, b);
    const at = (minute: number) => new Date(Date.UTC(2025, 2, 1, 9, minute)).toISOString();
    const event = (n: number, groups: Record<string, string>): SourceEvent => ({ uuid: uuidOf(7000 + n), event: 'purchase', distinct_id: 'ada', timestamp: at(n), properties: { $groups: groups } });
    // A: team is type 0, company type 1. B: company 0, team 1.
    await sendToSandbox(a, [event(1, { team: 'red' }), event(2, { company: 'acme' })]);
    await sendToSandbox(b, [
      { ...event(3, { company: 'initech' }), uuid: uuidOf(7100) },
      { ...event(4, { team: 'blue' }), uuid: uuidOf(7101) },
    ]);
    const sent = JSON.parse(storedEvents(a, 1).find((e) => e.uuid === uuidOf(7002))!.properties) as Record<string, unknown>;
    expect(sent).toMatchObject({ $group_1: 'acme' });

    expect((await runCli(posthogExportArgs(dir, config, '2025-03-01', '2025-03-01'), { cwd: dir })).code).toBe(0);
    const imported = await runCli(['import', '--project', 'test', '--staging', join(dir, 'migration.db'), '--config', config, ...FAST], { cwd: dir });
    expect(imported.code, imported.stderr).toBe(0);
    const moved = (uuid: string) => JSON.parse(storedEvents(b, 1).find((e) => e.uuid === uuid)!.properties) as Record<string, unknown>;
    const company = moved(uuidOf(7002));
    expect(company.$group_0).toBe('acme');
    expect(company).not.toHaveProperty('$group_1');
    const team = moved(uuidOf(7001));
    expect(team.$group_1).toBe('red');
    expect(team).not.toHaveProperty('$group_0');
  });
});
