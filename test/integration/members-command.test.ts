/**
 * `migrate members list|get|add|update|remove` on both members APIs: the sandbox's default
 * serves explicit members (older PostHog), `explicitMembers: false` answers them 404
 * "Endpoint not found." as Cloud does, leaving access control. Same people, same rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_USERS } from '../../src/sandbox/api/management-seed.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { startManagementSandbox, type ManagementSandbox } from '../helpers/management-sandbox.js';

const tempDir = useTempDir();
const { owner, admin, member, newcomer } = SANDBOX_USERS;
const UNKNOWN = '01930000-0000-7000-8000-0000000000ff';

const MODES = [
  { name: 'explicit members (older PostHog)', explicitMembers: true, says: 'Members API: explicit members.' },
  { name: 'access control (PostHog Cloud today)', explicitMembers: false, says: 'Members API: access control (this PostHog has no explicit-members endpoint).' },
] as const;

describe.each(MODES)('migrate members on $name', ({ explicitMembers, says }) => {
  let sb: ManagementSandbox;
  beforeAll(async () => {
    sb = await startManagementSandbox({ api: { explicitMembers } });
  });
  afterAll(() => sb.sandbox.close());

  function members(key: string, args: string[], projectId = 1) {
    const config = sb.writeConfig(tempDir(), { test: { key, projectId } });
    return sb.cli(config, ['members', ...args, '--project', 'test']);
  }

  it('list shows everyone who can enter, the owner through the organization, and says which API answered', async () => {
    const result = await members('owner-all', ['list']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(says);
    const rows = result.stdout.split('\n').slice(1);
    expect(rows.find((r) => r.startsWith(owner.uuid))).toMatch(/Olivia Owner <olivia@sandbox.local>\s+none\s+15 \(owner\)\s+organization admin or owner$/);
    expect(rows.find((r) => r.startsWith(admin.uuid))).toMatch(/Ada Admin <ada@sandbox.local>\s+8 \(administrator\)\s+8 \(administrator\)\s+project member$/);
    expect(rows.filter((r) => r.startsWith('0193'))).toHaveLength(4);
    const json = JSON.parse((await members('owner-all', ['list', '--json'])).stdout) as { api: string; members: Array<{ user: { uuid: string }; level: number | null }> };
    expect(json.api).toBe(explicitMembers ? 'explicit_members' : 'access_control');
    expect(new Set(json.members.map((m) => m.user.uuid))).toEqual(new Set([owner.uuid, admin.uuid, member.uuid, newcomer.uuid]));
  });

  it('get prints a member and their levels; --json carries the API', async () => {
    const result = await members('owner-all', ['get', newcomer.uuid]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^user\s+Nia Newcomer <nia@sandbox.local>$/m);
    expect(result.stdout).toMatch(/^level\s+1 \(member\)$/m);
    expect(result.stdout).toMatch(/^effective level\s+1 \(member\)$/m);
    expect(result.stdout).toMatch(/^organization level\s+1 \(member\)$/m);
    const json = await members('owner-all', ['get', newcomer.uuid.toUpperCase(), '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      api: explicitMembers ? 'explicit_members' : 'access_control',
      level: 1,
      effective_level: 1,
      parent_level: 1,
      access_level: 'member',
      access_source: 'explicit_member',
      user: { uuid: newcomer.uuid, email: 'nia@sandbox.local' },
    });
  });

  it("get of the organization owner reports the owner's real access, not a 404", async () => {
    const result = await members('owner-all', ['get', owner.uuid]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^level\s+none \(access through organization admin or owner\)$/m);
    expect(result.stdout).toMatch(/^effective level\s+15 \(owner\)$/m);
    expect(result.stdout).toMatch(/^organization level\s+15 \(owner\)$/m);
    expect(result.stdout).toMatch(/^access\s+admin, as organization admin or owner$/m);
  });

  it('get of someone without access is exit 8', async () => {
    const result = await members('owner-all', ['get', UNKNOWN]);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(
      explicitMembers ? `error: member ${UNKNOWN} was not found in project 1 (404: Not found.), answered by 127.0.0.1:` : `error: user ${UNKNOWN} has no access to project 1`,
    );
  });

  it('add gives an organization member access; adding again is refused', async () => {
    const added = await members('admin-all', ['add', newcomer.uuid, '--level', '1'], 2);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('Added Nia Newcomer <nia@sandbox.local> to project "test" as 1 (member).');
    expect(JSON.parse((await members('admin-all', ['get', newcomer.uuid, '--json'], 2)).stdout)).toMatchObject({ level: 1, effective_level: 1 });
    const again = await members('admin-all', ['add', newcomer.uuid], 2);
    expect(again.code).toBe(8);
    expect(again.stderr).toContain(explicitMembers ? 'This user likely already is an explicit member of the project.' : `error: user ${newcomer.uuid} is already a member of project 2 (member)`);
  });

  it('update sets the level (an administrator promoting a member, and back)', async () => {
    const result = await members('admin-all', ['update', newcomer.uuid, '--level', '8']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Nia Newcomer <nia@sandbox.local> is now 8 (administrator) in project "test".');
    const json = await members('admin-all', ['update', newcomer.uuid, '--level', '1', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ level: 1, effective_level: 1 });
  });

  it.each([
    ['nobody changes their own level', 'admin-all', admin.uuid, "error: permission denied (403): You can't set your own access level."],
    ['members cannot change levels', 'member-all', newcomer.uuid, explicitMembers ? "You don't have sufficient permissions in the project." : 'Must be admin to modify project permissions.'],
    [
      'a key without the write scope',
      explicitMembers ? 'admin-read-only' : 'admin-access-read-only',
      newcomer.uuid,
      explicitMembers ? "lacks the scope 'project:write' (403)" : "lacks the scope 'access_control:write' (403)",
    ],
  ])('update refused: %s (exit 4)', async (_name, key, uuid, message) => {
    const result = await members(key, ['update', uuid, '--level', '8']);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(message);
    if (!explicitMembers && key === 'admin-access-read-only') expect(result.stderr).toContain('access_control:write to change them');
  });

  it('scopes: owner-no-query has what changing members needs; owner-exports-only cannot even read them', async () => {
    const changed = await members('owner-no-query', ['update', newcomer.uuid, '--level', '1', '--json']);
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ level: 1, user: { email: 'nia@sandbox.local' } });
    const refused = await members('owner-exports-only', ['list']);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain(explicitMembers ? "lacks the scope 'project:read' (403)" : "lacks the scope 'access_control:read' (403)");
  });

  it('remove takes access away; the user is then without access', async () => {
    const result = await members('admin-all', ['remove', newcomer.uuid], 2);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Removed member ${newcomer.uuid} from project "test".`);
    expect((await members('admin-all', ['get', newcomer.uuid], 2)).code).toBe(8);
    expect((await members('admin-all', ['remove', newcomer.uuid], 2)).code).toBe(8);
  });

  it("the organization owner's access comes from the organization: update and remove say so (exit 8)", async () => {
    for (const [args, doing] of [
      [['remove', owner.uuid], 'removing them'],
      [['update', owner.uuid, '--level', '1'], 'setting 1 (member)'],
    ] as const) {
      const result = await members('owner-all', [...args]);
      expect(result.code).toBe(8);
      expect(result.stderr).toContain(`error: user ${owner.uuid} enters project 1 as an organization owner; that access comes from the organization, and ${doing} does not change it`);
    }
  });

  it.each([
    ['usage: a level that is neither 1 nor 8', ['update', newcomer.uuid, '--level', '15'], "option '--level <1|8>' argument '15' is invalid. must be 1 (member) or 8 (administrator)"],
    ['usage: update needs --level', ['update', newcomer.uuid], "required option '--level <1|8>' not specified"],
    ['usage: a user id that is not a uuid', ['get', 'nia@sandbox.local'], '"nia@sandbox.local" is not a user uuid'],
  ])('%s (exit 2)', async (_name, args, message) => {
    const result = await members('owner-all', args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe('what differs between the two APIs', () => {
  it('explicit members: a member may leave a project, and then cannot read it', async () => {
    const sb = await startManagementSandbox();
    try {
      const run = (key: string, args: string[]) => sb.cli(sb.writeConfig(tempDir(), { test: { key, projectId: 2 } }), ['members', ...args, '--project', 'test']);
      expect((await run('member-all', ['remove', admin.uuid])).code).toBe(4);
      const left = await run('member-all', ['remove', member.uuid, '--json']);
      expect(left.code).toBe(0);
      expect(JSON.parse(left.stdout)).toEqual({ removed: true, user_uuid: member.uuid, api: 'explicit_members' });
      const after = await run('member-all', ['get', admin.uuid]);
      expect(after.code).toBe(4);
      expect(after.stderr).toContain('error: permission denied (403): You do not have the required access to this project.');
    } finally {
      await sb.sandbox.close();
    }
  });

  it('access control: a key that may only read it lists the members; without the scope, the error says which scopes it needs', async () => {
    const sb = await startManagementSandbox({ api: { explicitMembers: false } });
    try {
      const run = (key: string, args: string[]) => sb.cli(sb.writeConfig(tempDir(), { test: { key } }), ['members', ...args, '--project', 'test']);
      const listed = await run('admin-access-read-only', ['list']);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain('Nia Newcomer <nia@sandbox.local>');
      const refused = await run('admin-read-only', ['list']);
      expect(refused.code).toBe(4);
      expect(refused.stderr).toContain("error: the personal API key lacks the scope 'access_control:read' (403)");
      expect(refused.stderr).toContain('This PostHog manages project members through access control: the key needs access_control:read to read them');
    } finally {
      await sb.sandbox.close();
    }
  });
});
