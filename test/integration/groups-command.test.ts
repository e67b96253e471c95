/** `migrate groups list|find` against groups stored in the sandbox (as ingested $groupidentify leaves them). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listNotebooks } from '../../src/sandbox/api/notebook-store.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { insertGroups, insertGroupType, startManagementSandbox, type ManagementSandbox } from '../helpers/management-sandbox.js';

let sb: ManagementSandbox;
const tempDir = useTempDir();

beforeAll(async () => {
  sb = await startManagementSandbox();
  insertGroupType(sb.store, 1, 0, 'company');
  insertGroups(sb.store, 1, 0, 250, 'org');
  insertGroups(sb.store, 1, 1, 3, 'team');
});
afterAll(() => sb.sandbox.close());

function groups(args: string[], key = 'admin-read-only') {
  const config = sb.writeConfig(tempDir(), { test: { key } });
  return sb.cli(config, ['groups', ...args, '--project', 'test']);
}

const tableRows = (stdout: string) => stdout.split('\n').filter((line) => /^(org|team)-\d+\s/.test(line));

describe('migrate groups list', () => {
  it('prints the newest 100 and points to --all', async () => {
    const result = await groups(['list', '--group-type-index', '0']);
    expect(result.code).toBe(0);
    const rows = tableRows(result.stdout);
    expect(rows).toHaveLength(100);
    expect(rows[0]).toMatch(/^org-249\s+2025-01-01T04:09:00.000Z\s+\{"name":"org number 249","plan":"free"\}$/);
    expect(rows[99]).toMatch(/^org-150\s/);
    expect(result.stdout).toContain('Showing the newest 100; pass --all for every group.');
  });

  it('--all follows the cursor across three pages', async () => {
    const result = await groups(['list', '--group-type-index', '0', '--all', '--json']);
    expect(result.code).toBe(0);
    const all = JSON.parse(result.stdout) as Array<{ group_key: string; group_type_index: number }>;
    expect(all).toHaveLength(250);
    expect(new Set(all.map((g) => g.group_key)).size).toBe(250);
    expect(all[0]!.group_key).toBe('org-249');
    expect(all[249]!.group_key).toBe('org-0');
  });

  it('--json without --all prints the first page with its cursor link', async () => {
    const page = JSON.parse((await groups(['list', '--group-type-index', '0', '--json'])).stdout) as { next: string; previous: null; results: unknown[] };
    expect(page.results).toHaveLength(100);
    expect(page.previous).toBeNull();
    expect(new URL(page.next).searchParams.get('cursor')).toBeTruthy();
  });

  it.each([
    ['a substring of the properties', '0', ['--search', 'enterprise'], 25, 'org-240'],
    ['the exact key', '0', ['--search', 'org-7'], 1, 'org-7'],
    ['across pages with --all', '0', ['--search', 'free', '--all', '--json'], 225, 'org-249'],
    ['LIKE wildcards taken literally', '0', ['--search', '%'], 0, undefined],
    ['another type, no search', '1', [], 3, 'team-2'],
  ])('%s', async (_name, typeIndex, extra, count, first) => {
    const result = await groups(['list', '--group-type-index', typeIndex, ...extra]);
    expect(result.code).toBe(0);
    const keys = extra.includes('--json') ? (JSON.parse(result.stdout) as Array<{ group_key: string }>).map((g) => g.group_key) : tableRows(result.stdout).map((line) => line.split(/\s+/)[0]);
    expect(keys).toHaveLength(count);
    expect(keys[0]).toBe(first);
    if (count === 0) expect(result.stdout).toContain('No groups found.');
  });
});

describe('migrate groups find', () => {
  it('prints the group and its properties', async () => {
    const result = await groups(['find', '--group-type-index', '0', '--key', 'org-42']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^key\s+org-42$/m);
    expect(result.stdout).toContain('"name": "org number 42"');
    const json = await groups(['find', '--group-type-index', '0', '--key', 'org-42', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      group_type_index: 0,
      group_key: 'org-42',
      group_properties: { name: 'org number 42', plan: 'free' },
      created_at: '2025-01-01T00:42:00.000Z',
    });
  });

  it("is read-only: PostHog is told not to create the group's notebook, and none is made", async () => {
    for (const key of ['org-1', 'org-2', 'org-2']) expect((await groups(['find', '--group-type-index', '0', '--key', key], 'owner-all')).code).toBe(0);
    const json = JSON.parse((await groups(['find', '--group-type-index', '0', '--key', 'org-3', '--json'])).stdout) as { notebook: string | null };
    expect(json.notebook).toBeNull();
    expect(listNotebooks(sb.store)).toEqual([]);
  });

  it('404 when there is no such group (exit 8)', async () => {
    const result = await groups(['find', '--group-type-index', '1', '--key', 'org-42']);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain('error: group "org-42" of type 1 was not found in project 1 (404: Not found.)');
  });
});

describe('errors', () => {
  it.each([
    ['403 names the scope', ['list', '--group-type-index', '0'], 'owner-exports-only', 4, "error: the personal API key lacks the scope 'group:read' (403)"],
    ['an index out of range', ['list', '--group-type-index', '7'], 'owner-all', 2, 'must be a group type index from 0 to 4'],
    ['the index is required', ['find', '--key', 'x'], 'owner-all', 2, "required option '--group-type-index <n>' not specified"],
    ['find needs a key', ['find', '--group-type-index', '0'], 'owner-all', 2, "required option '--key <key>' not specified"],
  ])('%s', async (_name, args, key, code, message) => {
    const result = await groups(args, key);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
  });
});
