/**
 * Person and group updates end to end: staged from the bundled users and companies files,
 * imported into a real sandbox, and compared with the persons and groups it then holds.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { FIXTURES, runCli } from '../helpers/run-cli.js';
import { storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { FAST } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();

type Obj = Record<string, unknown>;

function personOf(sandbox: RunningSandbox, distinctId: string): Obj | undefined {
  const row = sandbox.store.db.prepare('SELECT p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.team_id = 1 AND d.distinct_id = ?').get(distinctId) as
    | { properties: string }
    | undefined;
  // No staged row is located (they carry $geoip_disable); any location would show here.
  return row && (JSON.parse(row.properties) as Obj);
}

function groupsOf(sandbox: RunningSandbox): Record<string, Obj> {
  const rows = sandbox.store.db
    .prepare(
      "SELECT g.group_key, g.group_properties FROM groups g JOIN group_types t ON t.team_id = g.team_id AND t.group_type_index = g.group_type_index WHERE g.team_id = 1 AND t.group_type = 'company'",
    )
    .all() as Array<{ group_key: string; group_properties: string }>;
  return Object.fromEntries(rows.map((r) => [r.group_key, JSON.parse(r.group_properties) as Obj]));
}

/** The good rows of a simple CSV fixture (no quoted newlines), as objects of non-empty cells. */
function csvRows(file: string): Obj[] {
  const [header, ...lines] = readFileSync(file, 'utf8').trim().split('\n');
  const names = header!.split(',');
  return lines.map((line) => {
    const cells = line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) =>
      c
        .replace(/,$/, '')
        .replace(/^"(.*)"$/, '$1')
        .replaceAll('""', '"'),
    );
    return Object.fromEntries(names.map((n, i) => [n, cells[i]]).filter(([, v]) => v !== ''));
  });
}

async function cli(dir: string, args: string[]) {
  const result = await runCli(args, { cwd: dir });
  expect(result.code, result.stderr).toBe(0);
  return result;
}

describe('people and groups, end to end', () => {
  it('stored persons and groups match the files; events carry $groups; $set_once never overwrites', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = ['--staging', join(dir, 'm.db')];
    await cli(dir, ['export-source', '--from', 'csv', join(FIXTURES, 'sample-events.csv'), '--group', 'company=company', ...staging, '--quiet']);
    await cli(dir, ['identify-users', '--from', 'csv', join(FIXTURES, 'users.csv'), '--set-once', 'first_seen', ...staging, '--quiet']);
    await cli(dir, ['identify-groups', '--from', 'csv', join(FIXTURES, 'companies.csv'), '--group-type', 'company', ...staging, '--quiet']);
    await cli(dir, ['import', '--project', 'test', '--config', config, ...staging, ...FAST]);

    const users = csvRows(join(FIXTURES, 'users.csv')).filter((u) => typeof u.distinct_id === 'string' && u.distinct_id.length <= 200);
    expect(users).toHaveLength(28);
    for (const user of users) {
      const { distinct_id, anon_distinct_id, ...props } = user;
      expect(personOf(sandbox, distinct_id as string), String(distinct_id)).toEqual(props);
      if (anon_distinct_id) expect(personOf(sandbox, anon_distinct_id as string)).toEqual(props);
    }
    const companies = csvRows(join(FIXTURES, 'companies.csv')).filter((c) => c.group_key);
    expect(groupsOf(sandbox)).toEqual(Object.fromEntries(companies.map(({ group_key, employees, ...rest }) => [group_key, { ...rest, employees: Number(employees) }])));

    const events = storedEvents(sandbox, 1).filter((e) => !e.event.startsWith('$identify') && e.event !== '$groupidentify');
    expect(events).toHaveLength(3000);
    for (const e of events) {
      const p = JSON.parse(e.properties) as Obj;
      expect(p.$groups).toEqual(p.company === undefined ? undefined : { company: p.company });
    }
    // Group updates, then person updates, then the events: each event is stored with its person's and groups' properties.
    const order = storedEvents(sandbox, 1).map((e) => e.event);
    expect(order.findLastIndex((name) => name === '$groupidentify')).toBeLessThan(order.findIndex((name) => name === '$identify'));
    expect(order.findLastIndex((name) => name === '$identify')).toBeLessThan(order.findIndex((name) => !name.startsWith('$')));

    // A later users file changes the plan ($set wins) but not first_seen ($set_once never overwrites).
    writeFileSync(join(dir, 'later.csv'), 'distinct_id,plan,first_seen\nana@example.com,enterprise,1999-01-01\n');
    await cli(dir, ['identify-users', '--from', 'csv', join(dir, 'later.csv'), '--set-once', 'first_seen', ...staging, '--quiet']);
    await cli(dir, ['import', '--project', 'test', '--config', config, ...staging, ...FAST]);
    const ana = users.find((u) => u.distinct_id === 'ana@example.com')!;
    expect(personOf(sandbox, 'ana@example.com')).toMatchObject({ plan: 'enterprise', first_seen: ana.first_seen });
  });
});
