/**
 * Project members both ways: today's access control (users_with_access, access_controls,
 * organization members) and the explicit-members API of older instances, switchable off.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_USERS } from '../../src/sandbox/api/management-seed.js';
import type { ApiOptions } from '../../src/sandbox/api/api-routes.js';
import { apiCaller } from '../helpers/api-call.js';
import { startManagementSandbox, type ManagementSandbox } from '../helpers/management-sandbox.js';

const { owner, admin, member, newcomer } = SANDBOX_USERS;
const running: ManagementSandbox[] = [];
let current: ManagementSandbox;
const call = apiCaller(
  () => current.sandbox.url,
  (label) => current.key(label),
);

/** A fresh sandbox per test: these tests change memberships. */
async function fresh(api: ApiOptions = {}): Promise<ManagementSandbox> {
  current = await startManagementSandbox({ api, now: () => new Date('2026-03-01T12:00:00.000Z') });
  running.push(current);
  return current;
}

afterEach(async () => {
  for (const sb of running.splice(0)) await sb.sandbox.close();
});
afterAll(() => call.close());

interface UserAccess {
  user_id: string;
  access_level: string;
  access_source: string;
  organization_membership_id: string;
  organization_membership_level: string;
}

async function usersWithAccess(projectId: number, key = 'owner-all'): Promise<Array<[string, string, string, string]>> {
  const reply = await call('GET', `/api/projects/${projectId}/users_with_access/`, key);
  expect(reply.status).toBe(200);
  const body = reply.json<{ users: UserAccess[]; total_count: number }>();
  expect(body.total_count).toBe(body.users.length);
  return body.users.map((u) => [u.user_id, u.access_level, u.access_source, u.organization_membership_level]);
}

async function membershipId(userUuid: string): Promise<string> {
  const page = (await call('GET', '/api/organizations/@current/members/', 'owner-all')).json<{ results: Array<{ id: string; user: { uuid: string } }> }>();
  return page.results.find((m) => m.user.uuid === userUuid)!.id;
}

describe('users_with_access', () => {
  it('lists who is in a project, highest access first, the owner through the organization', async () => {
    await fresh();
    expect(await usersWithAccess(1)).toEqual([
      [admin.uuid, 'admin', 'explicit_member', 'member'],
      [owner.uuid, 'admin', 'organization_admin', 'owner'],
      [newcomer.uuid, 'member', 'explicit_member', 'member'],
      [member.uuid, 'member', 'explicit_member', 'member'],
    ]);
    expect((await usersWithAccess(2, 'admin-access-read-only')).map(([uuid]) => uuid)).toEqual([admin.uuid, owner.uuid, member.uuid]);
  });

  it('also answers under /api/environments/, and names the membership ids organization members lists', async () => {
    await fresh();
    const reply = (await call('GET', '/api/environments/1/users_with_access/', 'owner-all')).json<{ users: UserAccess[] }>();
    const members = (await call('GET', '/api/organizations/@current/members/', 'owner-all')).json<{
      count: number;
      results: Array<{ id: string; level: number; user: { uuid: string; email: string } }>;
    }>();
    expect(members.count).toBe(4);
    expect(members.results.map((m) => m.level)).toEqual([1, 1, 1, 15]);
    for (const user of reply.users) expect(members.results.find((m) => m.user.uuid === user.user_id)?.id).toBe(user.organization_membership_id);
  });
});

describe('PUT access_controls', () => {
  it('grants, changes and removes a member, as both APIs then show', async () => {
    await fresh();
    const nia = await membershipId(newcomer.uuid);
    const granted = await call('PUT', '/api/projects/2/access_controls/', 'owner-all', { organization_member: nia, access_level: 'member' });
    expect(granted.status).toBe(200);
    expect(granted.json()).toEqual({
      access_level: 'member',
      resource: 'project',
      resource_id: '2',
      organization_member: nia,
      role: null,
      created_by: owner.id,
      created_at: '2026-03-01T12:00:00.000Z',
      updated_at: '2026-03-01T12:00:00.000Z',
    });
    expect(await usersWithAccess(2)).toContainEqual([newcomer.uuid, 'member', 'explicit_member', 'member']);
    expect((await call('PUT', '/api/projects/2/access_controls/', 'admin-all', { organization_member: nia, access_level: 'admin' })).status).toBe(200);
    expect((await call('GET', `/api/environments/2/explicit_members/${newcomer.uuid}/`, 'owner-all')).json()).toMatchObject({ level: 8, effective_level: 8 });
    const removed = await call('PUT', '/api/projects/2/access_controls/', 'owner-all', { organization_member: nia, access_level: null });
    expect([removed.status, removed.text]).toEqual([204, '']);
    expect((await usersWithAccess(2)).map(([uuid]) => uuid)).not.toContain(newcomer.uuid);
  });

  it('takes "none" as no access, and answers it like any control', async () => {
    await fresh();
    const milo = await membershipId(member.uuid);
    const reply = await call('PUT', '/api/projects/1/access_controls/', 'owner-all', { organization_member: milo, access_level: 'none' });
    expect(reply.json()).toMatchObject({ access_level: 'none', organization_member: milo });
    expect((await usersWithAccess(1)).map(([uuid]) => uuid)).not.toContain(member.uuid);
  });

  it('lists the controls: the private-project default, then one per member', async () => {
    await fresh();
    const body = (await call('GET', '/api/projects/2/access_controls/', 'member-all')).json<{ access_controls: Array<{ organization_member: string | null; access_level: string }> }>();
    expect(body).toMatchObject({ available_access_levels: ['none', 'member', 'admin'], default_access_level: 'admin', user_access_level: 'member', user_can_edit_access_levels: false });
    expect(body.access_controls.map((c) => c.access_level)).toEqual(['none', 'member', 'admin']);
    expect(body.access_controls[0]!.organization_member).toBeNull();
  });

  it.each<[string, string, (ids: Record<string, string>) => unknown, number, Record<string, unknown>]>([
    [
      'a member may not change access',
      'member-all',
      (ids) => ({ organization_member: ids.newcomer, access_level: 'member' }),
      403,
      { code: 'permission_denied', detail: 'Must be admin to modify project permissions.' },
    ],
    ['nobody sets their own level', 'admin-all', (ids) => ({ organization_member: ids.admin, access_level: 'member' }), 403, { detail: "You can't set your own access level." }],
    [
      'a key without access_control:write',
      'admin-access-read-only',
      (ids) => ({ organization_member: ids.newcomer, access_level: 'member' }),
      403,
      { detail: "API key missing required scope 'access_control:write'" },
    ],
    [
      'an unknown level',
      'owner-all',
      (ids) => ({ organization_member: ids.newcomer, access_level: 'owner' }),
      400,
      { type: 'validation_error', code: 'invalid_input', detail: 'Invalid access level. Must be one of: none, member, admin', attr: 'access_level' },
    ],
    ['no level', 'owner-all', (ids) => ({ organization_member: ids.newcomer }), 400, { code: 'required', attr: 'access_level' }],
    [
      'an unknown membership',
      'owner-all',
      () => ({ organization_member: 'nope', access_level: 'member' }),
      400,
      { code: 'does_not_exist', detail: 'Invalid pk "nope" - object does not exist.', attr: 'organization_member' },
    ],
    ['no membership (a project-wide default)', 'owner-all', () => ({ access_level: 'none' }), 400, { code: 'invalid_input', attr: 'organization_member' }],
  ])('%s', async (_name, key, body, status, expected) => {
    await fresh();
    const ids = { admin: await membershipId(admin.uuid), newcomer: await membershipId(newcomer.uuid) };
    const reply = await call('PUT', '/api/projects/2/access_controls/', key, body(ids));
    expect(reply.status).toBe(status);
    expect(reply.json()).toMatchObject(expected);
  });

  it('lets an administrator leave (remove their own control)', async () => {
    await fresh();
    const ada = await membershipId(admin.uuid);
    expect((await call('PUT', '/api/projects/2/access_controls/', 'admin-all', { organization_member: ada, access_level: null })).status).toBe(204);
    expect((await call('GET', '/api/projects/2/users_with_access/', 'admin-all')).status).toBe(403);
  });

  it('needs access_control:read to read, and organization_member:read to list members', async () => {
    await fresh();
    expect((await call('GET', '/api/projects/1/users_with_access/', 'admin-read-only')).json()).toMatchObject({ detail: "API key missing required scope 'access_control:read'" });
    expect((await call('GET', '/api/organizations/@current/members/', 'admin-read-only')).json()).toMatchObject({ detail: "API key missing required scope 'organization_member:read'" });
    expect((await call('GET', '/api/organizations/01930000-0000-7000-8000-0000000000ff/members/', 'owner-all')).status).toBe(404);
  });
});

describe('explicit members', () => {
  it.each([
    ['GET', '/api/environments/1/explicit_members/'],
    ['GET', `/api/environments/1/explicit_members/${member.uuid}/`],
    ['PATCH', `/api/projects/1/explicit_members/${member.uuid}/`],
    ['POST', '/api/environments/1/explicit_members/'],
  ] as const)('are gone with explicitMembers: false, as on Cloud: %s %s', async (method, path) => {
    await fresh({ explicitMembers: false });
    for (const key of ['owner-all', null]) {
      const reply = await call(method, path, key, method === 'GET' ? undefined : { level: 8 });
      expect(reply.status).toBe(404);
      expect(reply.json()).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Endpoint not found.', attr: null });
    }
    expect((await usersWithAccess(1)).length).toBe(4);
  });

  it('lists members, lowest level first', async () => {
    await fresh();
    const list = (await call('GET', '/api/environments/1/explicit_members/', 'member-all')).json<Array<{ level: number; user: { uuid: string } }>>();
    expect(list.map((m) => m.level)).toEqual([1, 1, 8]);
    expect(list.map((m) => m.user.uuid)).toContain(newcomer.uuid);
  });

  it('answers 404 for the organization owner, who has no explicit membership (users_with_access lists them)', async () => {
    await fresh();
    const reply = await call('GET', `/api/environments/1/explicit_members/${owner.uuid}/`, 'owner-all');
    expect([reply.status, reply.json().detail]).toEqual([404, 'Not found.']);
  });

  it('adds a member with a level', async () => {
    await fresh();
    const reply = await call('POST', '/api/environments/2/explicit_members/', 'admin-all', { user_uuid: newcomer.uuid, level: 8 });
    expect(reply.status).toBe(201);
    expect(reply.json()).toMatchObject({ level: 8, parent_level: 1, effective_level: 8, user: { uuid: newcomer.uuid, email: newcomer.email } });
    expect(await usersWithAccess(2)).toContainEqual([newcomer.uuid, 'admin', 'explicit_member', 'member']);
  });

  it.each<[string, string, Record<string, unknown>, number, Record<string, unknown>]>([
    ['no level means member', 'owner-all', { user_uuid: newcomer.uuid }, 201, { level: 1 }],
    ['already a member', 'owner-all', { user_uuid: member.uuid, level: 1 }, 400, { code: 'invalid_input', detail: 'This user likely already is an explicit member of the project.', attr: null }],
    ['yourself', 'admin-all', { user_uuid: admin.uuid, level: 1 }, 403, { detail: "You can't explicitly add yourself to projects." }],
    ['someone outside the organization', 'owner-all', { user_uuid: '01930000-0000-7000-8000-0000000000ff' }, 403, { detail: 'You both need to belong to the same organization.' }],
    ['by a member', 'member-all', { user_uuid: newcomer.uuid, level: 1 }, 403, { detail: "You don't have sufficient permissions in the project." }],
    ['no user', 'owner-all', { level: 1 }, 400, { code: 'required', attr: 'user_uuid' }],
    ['not a uuid', 'owner-all', { user_uuid: 'nia@sandbox.local' }, 400, { code: 'invalid_input', attr: 'user_uuid' }],
    ['a level that does not exist', 'owner-all', { user_uuid: newcomer.uuid, level: 15 }, 400, { code: 'invalid_choice', attr: 'level' }],
  ])('add: %s', async (_name, key, body, status, expected) => {
    await fresh();
    const reply = await call('POST', '/api/environments/2/explicit_members/', key, body);
    expect(reply.status).toBe(status);
    expect(reply.json()).toMatchObject(expected);
  });
});
