/** `migrate members get|update|remove` against the sandbox's seeded people and rules. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_USERS } from '../../src/sandbox/api/management-seed.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { startManagementSandbox, type ManagementSandbox } from '../helpers/management-sandbox.js';

let sb: ManagementSandbox;
const tempDir = useTempDir();
const { admin, member, newcomer } = SANDBOX_USERS;
const UNKNOWN = '01930000-0000-7000-8000-0000000000ff';

beforeAll(async () => {
  sb = await startManagementSandbox();
});
afterAll(() => sb.sandbox.close());

async function members(key: string, args: string[], projectId = 1) {
  const config = sb.writeConfig(tempDir(), { test: { key, projectId } });
  return sb.cli(config, ['members', ...args, '--project', 'test']);
}

describe('migrate members', () => {
  it('get prints the member and their levels', async () => {
    const result = await members('owner-all', ['get', newcomer.uuid]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^user\s+Nia Newcomer <nia@sandbox.local>$/m);
    expect(result.stdout).toMatch(/^level\s+1 \(member\)$/m);
    expect(result.stdout).toMatch(/^organization level\s+1 \(member\)$/m);
    const json = await members('owner-all', ['get', newcomer.uuid.toUpperCase(), '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ level: 1, effective_level: 1, parent_level: 1, user: { uuid: newcomer.uuid, email: 'nia@sandbox.local' } });
  });

  it('update sets the level (an administrator promoting a member)', async () => {
    const result = await members('admin-all', ['update', newcomer.uuid, '--level', '8']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Nia Newcomer <nia@sandbox.local> is now 8 (administrator) in project "test".');
    const json = await members('admin-all', ['update', newcomer.uuid, '--level', '1', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ level: 1, effective_level: 1 });
  });

  it.each([
    ['nobody changes their own level', 'admin-all', admin.uuid, "error: permission denied (403): You can't set your own access level."],
    ['members cannot change levels', 'member-all', newcomer.uuid, "error: permission denied (403): You don't have sufficient permissions in the project."],
    ['a read-only key lacks project:write', 'admin-read-only', newcomer.uuid, "error: the personal API key lacks the scope 'project:write' (403)"],
  ])('update refused: %s (exit 4)', async (_name, key, uuid, message) => {
    const result = await members(key, ['update', uuid, '--level', '8']);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(message);
  });

  it('404 for a user who is not an explicit member (exit 8)', async () => {
    const result = await members('owner-all', ['get', UNKNOWN]);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(`error: member ${UNKNOWN} was not found in project 1 (404: Not found.)`);
    const patch = await members('owner-all', ['update', UNKNOWN, '--level', '1']);
    expect(patch.code).toBe(8);
  });

  it.each([
    [['update', newcomer.uuid, '--level', '15'], "option '--level <1|8>' argument '15' is invalid. must be 1 (member) or 8 (administrator)"],
    [['update', newcomer.uuid], "required option '--level <1|8>' not specified"],
    [['get', 'nia@sandbox.local'], '"nia@sandbox.local" is not a user uuid'],
  ])('usage errors exit 2: %j', async (args, message) => {
    const result = await members('owner-all', args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('remove deletes the membership; the member is then not found', async () => {
    const result = await members('admin-all', ['remove', newcomer.uuid]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Removed member ${newcomer.uuid} from project "test".`);
    expect((await members('admin-all', ['get', newcomer.uuid])).code).toBe(8);
    expect((await members('admin-all', ['remove', newcomer.uuid])).code).toBe(8);
  });

  it('a member may leave a project, and then cannot read it', async () => {
    const refused = await members('member-all', ['remove', admin.uuid], 2);
    expect(refused.code).toBe(4);
    const left = await members('member-all', ['remove', member.uuid, '--json'], 2);
    expect(left.code).toBe(0);
    expect(JSON.parse(left.stdout)).toEqual({ removed: true, user_uuid: member.uuid });
    const after = await members('member-all', ['get', admin.uuid], 2);
    expect(after.code).toBe(4);
    expect(after.stderr).toContain('error: permission denied (403): You do not have the required access to this project.');
  });
});
