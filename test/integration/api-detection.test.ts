/**
 * Which API an instance has, detected once per run: project resources under the canonical
 * `/api/projects/:id/` with `/api/environments/:id/` as the fallback, and explicit members
 * with access control as the fallback. A relay on loopback stands for an instance without
 * some paths (it answers them 404 "Endpoint not found.") and records what was asked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_USERS } from '../../src/sandbox/api/management-seed.js';
import { startRelay, type LoopbackServer } from '../helpers/loopback-servers.js';
import { useClients } from '../helpers/management-client.js';
import { insertGroups, insertGroupType, startManagementSandbox, type ManagementSandbox } from '../helpers/management-sandbox.js';
import { useTempDir } from '../helpers/temp-dir.js';

const clientFor = useClients();
const tempDir = useTempDir();
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of open.splice(0)) await server.close();
});

async function sandbox(explicitMembers = true): Promise<ManagementSandbox> {
  const sb = await startManagementSandbox({ api: { explicitMembers } });
  open.push({ close: () => sb.sandbox.close() });
  insertGroupType(sb.store, 1, 0, 'company');
  insertGroups(sb.store, 1, 0, 120, 'org');
  return sb;
}

async function relay(sb: ManagementSandbox, unrouted?: (path: string) => boolean): Promise<LoopbackServer> {
  const server = await startRelay(sb.sandbox.url, { unrouted });
  open.push(server);
  return server;
}

const PROJECT_RESOURCE = /^\/api\/projects\/\d+\//;
const paths = (server: LoopbackServer) => server.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`);

describe('the project prefix', () => {
  it('uses /api/projects/:id/ where the instance answers it, and never asks /api/environments/', async () => {
    const sb = await sandbox();
    const server = await relay(sb);
    const { api } = clientFor(server.url, sb.key('owner-all'));
    await api.listGroupTypes();
    await api.listAllGroups({ groupTypeIndex: 0 });
    await api.findGroup(0, 'org-1');
    await api.listExports({});
    expect(api.project.prefix).toBe('projects');
    expect(paths(server)).toEqual([
      'GET /api/projects/1/groups_types/',
      'GET /api/projects/1/groups/',
      'GET /api/projects/1/groups/',
      'GET /api/projects/1/groups/find/',
      'GET /api/projects/1/exports/',
    ]);
  });

  it('falls back to /api/environments/:id/ on "Endpoint not found.", once: later calls go there first', async () => {
    const sb = await sandbox();
    const server = await relay(sb, (path) => PROJECT_RESOURCE.test(path));
    const { api } = clientFor(server.url, sb.key('owner-all'));
    expect(await api.listGroupTypes()).toHaveLength(1);
    expect(await api.listAllGroups({ groupTypeIndex: 0 })).toHaveLength(120);
    expect((await api.findGroup(0, 'org-7')).group_key).toBe('org-7');
    const created = await api.createExport({ insight: 1, export_format: 'text/csv' });
    expect(created.type).toBe('created');
    expect(api.project.prefix).toBe('environments');
    expect(paths(server)).toEqual([
      'GET /api/projects/1/groups_types/',
      'GET /api/environments/1/groups_types/',
      'GET /api/environments/1/groups/',
      'GET /api/environments/1/groups/',
      'GET /api/environments/1/groups/find/',
      'POST /api/environments/1/exports/',
    ]);
  });

  it('the CLI works on an instance that serves only /api/environments/ for project resources', async () => {
    const sb = await sandbox();
    const server = await relay(sb, (path) => PROJECT_RESOURCE.test(path));
    const config = sb.writeConfig(tempDir(), { test: { apiHost: server.url, host: sb.sandbox.url } });
    const result = await sb.cli(config, ['groups', 'list', '--group-type-index', '0', '--all', '--json', '--project', 'test']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(120);
    expect(paths(server)).toEqual(['GET /api/projects/1/groups/', 'GET /api/environments/1/groups/', 'GET /api/environments/1/groups/']);
  });

  it('an endpoint missing under both prefixes is reported as missing, with the path asked first', async () => {
    const sb = await sandbox();
    const server = await relay(sb, (path) => /\/groups_types\/$/.test(path));
    const { api } = clientFor(server.url, sb.key('owner-all'));
    await expect(api.listGroupTypes()).rejects.toThrow(`the API has no endpoint GET /api/projects/1/groups_types/ (404 Endpoint not found.), answered by ${new URL(server.url).host}`);
  });
});

describe('the members API', () => {
  it('access control when explicit members answer "Endpoint not found.": asked once per run, under both prefixes', async () => {
    const sb = await sandbox(false);
    const server = await relay(sb);
    const { api } = clientFor(server.url, sb.key('admin-all'));
    expect((await api.members.get(SANDBOX_USERS.newcomer.uuid)).api).toBe('access_control');
    expect((await api.members.update(SANDBOX_USERS.newcomer.uuid, 8)).member).toMatchObject({ level: 8, effective_level: 8, access_level: 'admin' });
    expect((await api.members.list()).api).toBe('access_control');
    const asked = paths(server).filter((p) => p.includes('explicit_members'));
    expect(asked).toEqual(['GET /api/projects/1/explicit_members/', 'GET /api/environments/1/explicit_members/']);
    expect(paths(server)).toContain('PUT /api/projects/1/access_controls/');
  });

  it('explicit members where the instance serves them, under the prefix it answers', async () => {
    const sb = await sandbox(true);
    const server = await relay(sb, (path) => PROJECT_RESOURCE.test(path));
    const { api } = clientFor(server.url, sb.key('admin-all'));
    const answer = await api.members.update(SANDBOX_USERS.newcomer.uuid, 8);
    expect(answer).toMatchObject({ api: 'explicit_members', member: { level: 8, effective_level: 8 } });
    expect(paths(server)).toEqual(['GET /api/projects/1/explicit_members/', 'GET /api/environments/1/explicit_members/', `PATCH /api/environments/1/explicit_members/${SANDBOX_USERS.newcomer.uuid}/`]);
  });
});
