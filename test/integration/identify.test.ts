import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

async function run(dir: string, args: string[]) {
  const result = await runCli([...args, '--staging', join(dir, 'm.db')], { cwd: dir });
  return { ...result, json: result.code === 0 && args.includes('--json') ? JSON.parse(result.stdout) : undefined };
}

describe('identify-users and identify-groups', () => {
  it('stage the bundled users and companies, reject the bad rows, and stage nothing new on a re-run', async () => {
    const dir = tempDir();
    for (const name of ['users.csv', 'companies.csv']) copyFileSync(join(FIXTURES, name), join(dir, name));
    const users = await run(dir, ['identify-users', '--from', 'csv', 'users.csv', '--set-once', 'first_seen', '--json']);
    expect(users.json.totals).toMatchObject({ rowsRead: 30, staged: 28, rejected: 2, rejectedByReason: { missing_distinct_id: 1, distinct_id_too_long: 1 } });
    const groups = await run(dir, ['identify-groups', '--from', 'csv', 'companies.csv', '--group-type', 'company', '--json']);
    expect(groups.json.totals).toMatchObject({ rowsRead: 6, staged: 5, rejectedByReason: { missing_group_key: 1 } });

    const status = await run(dir, ['status', '--json']);
    expect(status.json).toMatchObject({ events: { count: 0 }, persons: { count: 28 }, groups: { count: 5 } });

    const again = await run(dir, ['identify-users', '--from', 'csv', 'users.csv', '--set-once', 'first_seen', '--reread']);
    expect(again.stdout).toContain('0 new, 28 already staged');
    const groupsUnchanged = await run(dir, ['identify-groups', '--from', 'csv', 'companies.csv', '--group-type', 'company']);
    expect(groupsUnchanged.stdout).toContain('1 source unchanged since staged, not read again');
    const groupsAgain = await run(dir, ['identify-groups', '--from', 'csv', 'companies.csv', '--group-type', 'company', '--reread']);
    expect(groupsAgain.stdout).toContain('0 new, 5 already staged');
  });

  it('a changed --set-once is refused up front, and --replace-changed stages the new version in place of the old', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'u.csv'), 'distinct_id,plan,first_seen\nu1,pro,2025-01-01\n');
    await run(dir, ['identify-users', '--from', 'csv', 'u.csv']);
    const changed = await run(dir, ['identify-users', '--from', 'csv', 'u.csv', '--set-once', 'first_seen', '--json']);
    expect(changed.code).toBe(6);
    expect(changed.stdout).toBe('');
    expect(changed.stderr).toContain('u.csv was staged earlier with other options that shape its events:\n  --set-once: was none, now first_seen');
    expect(changed.stderr).toContain('--staging other.db');
    expect(changed.stderr).toContain('--replace-changed');
    const replaced = await run(dir, ['identify-users', '--from', 'csv', 'u.csv', '--set-once', 'first_seen', '--replace-changed', '--json']);
    expect(replaced.code).toBe(0);
    expect(replaced.json.totals).toMatchObject({ staged: 1, rejected: 0, withdrawn: 1 });
    expect(replaced.json.files[0].withdrawn).toEqual([{ reason: 'replaced', count: 1, delivered: [] }]);
  });

  it('reads JSON lines', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'u.jsonl'), '{"distinct_id":"u1","plan":"pro","$set_once":{"first":"x"}}\n{"plan":"free"}\n');
    const result = await run(dir, ['identify-users', '--from', 'jsonl', 'u.jsonl', '--json']);
    expect(result.json.totals).toMatchObject({ staged: 1, rejectedByReason: { missing_distinct_id: 1 } });
  });

  it.each<[string[], number, RegExp]>([
    [['identify-groups', '--from', 'csv', 'x.csv'], 2, /--group-type <type>' not specified/],
    [['identify-groups', '--from', 'csv', 'g.csv', '--group-type', 'company', '--key-column', 'id'], 3, /g\.csv:1: the header has no "id" column/],
    [['identify-users', '--from', 'csv', 'g.csv'], 3, /g\.csv:1: the header has no "distinct_id" column \(found: group_key, name\); use --column distinct_id=<header> to name it/],
  ])('%j exits %i', async (args, code, message) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'g.csv'), 'group_key,name\nacme,Acme\n');
    const result = await run(dir, args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });
});

describe('export-source --group', () => {
  it('attaches events to their company', async () => {
    const dir = tempDir();
    const result = await run(dir, ['export-source', '--from', 'csv', join(FIXTURES, 'sample-events.csv'), '--group', 'company=company', '--json']);
    expect(result.json.totals.staged).toBe(3000);
  });
});
