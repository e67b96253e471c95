/**
 * identify-users and identify-groups --from mixpanel-profiles: the profiles Mixpanel exports
 * (`$distinct_id`, `$properties`; JSON lines or one JSON array), staged as the Engage API's
 * pages are, then imported into the sandbox: each a person or group with every property, the
 * reserved names renamed; a bad profile rejected with its file, line and field.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { FAST } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();

describe('Mixpanel profile files', () => {
  it('stage as person and group updates with every property, and reach PostHog', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = ['--staging', join(dir, 'm.db')];
    const users = join(dir, 'people.json');
    writeFileSync(
      users,
      JSON.stringify([
        { $distinct_id: 'ada', $properties: { $email: 'ada@example.com', $name: 'Ada L', $phone: '+4412', $last_seen: '2024-02-01T10:00:00', plan: 'pro', nested: { a: [1, 2] } } },
        { $distinct_id: 42, $properties: { $first_name: 'Num', $last_name: 'Ber', $avatar: 'https://x/a.png', $created: '2023-01-01T00:00:00' } },
        { $properties: { $email: 'nobody@example.com' } },
      ]),
    );
    const groups = join(dir, 'companies.jsonl');
    writeFileSync(groups, `${JSON.stringify({ $distinct_id: 'acme', $properties: { $name: 'Acme', seats: 12 } })}\n`);
    const u = await runCli(['identify-users', '--from', 'mixpanel-profiles', users, ...staging, '--quiet'], { cwd: dir });
    expect(u.code, u.stderr).toBe(0);
    expect(u.stdout).toContain('people.json:1 $distinct_id: distinct_id is missing or empty');
    const g = await runCli(['identify-groups', '--from', 'mixpanel-profiles', '--group-type', 'company_id', groups, ...staging, '--quiet'], { cwd: dir });
    expect(g.code, g.stderr).toBe(0);
    const imported = await runCli(['import', '--project', 'test', '--config', config, ...staging, ...FAST], { cwd: dir });
    expect(imported.code, imported.stderr).toBe(0);
    const person = (id: string) =>
      JSON.parse(
        (sandbox.store.db.prepare('SELECT p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.distinct_id = ?').get(id) as { properties: string }).properties,
      );
    expect(person('ada')).toEqual({ email: 'ada@example.com', name: 'Ada L', phone: '+4412', last_seen: '2024-02-01T10:00:00', plan: 'pro', nested: { a: [1, 2] } });
    expect(person('42')).toEqual({ first_name: 'Num', last_name: 'Ber', avatar: 'https://x/a.png', created: '2023-01-01T00:00:00' });
    const group = sandbox.store.db.prepare("SELECT group_key, group_properties FROM groups WHERE group_key = 'acme'").get() as { group_key: string; group_properties: string };
    expect(JSON.parse(group.group_properties)).toEqual({ name: 'Acme', seats: 12 });
  });
});
