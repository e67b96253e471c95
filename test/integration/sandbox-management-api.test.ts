/** The sandbox's management endpoints at the HTTP level: auth order, error bodies, paging, seeding. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpRequest } from '../../src/http/http-client.js';
import { insertExport } from '../../src/sandbox/api/export-store.js';
import { pauseExportRendering, resumeExportRendering } from '../../src/sandbox/api/export-scheduler.js';
import { SANDBOX_KEY_SPECS, SANDBOX_USERS, sandboxPersonalKeys } from '../../src/sandbox/api/management-seed.js';
import { startSandbox } from '../../src/sandbox/sandbox-server.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { startManagementSandbox, type ManagementSandbox } from '../helpers/management-sandbox.js';

let sb: ManagementSandbox;
const http = createHttpClient({ connections: 2 });
const tempDir = useTempDir();

beforeAll(async () => {
  sb = await startManagementSandbox();
});
afterAll(async () => {
  await http.close();
  await sb.sandbox.close();
});

async function call(path: string, label: string | null, init: Partial<HttpRequest> = {}) {
  const headers: Record<string, string> = label === null ? {} : { authorization: `Bearer ${sb.key(label)}` };
  const outcome = await http.send({ method: 'GET', url: `${sb.sandbox.url}${path}`, headers, ...init });
  if (outcome.type !== 'response') throw new Error(`no response: ${outcome.type}`);
  const text = outcome.body.toString();
  return { status: outcome.status, headers: outcome.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

describe('authentication and its order', () => {
  it.each([
    ['no credentials', '/api/projects/', null, 401, { type: 'authentication_error', code: 'not_authenticated', detail: 'Authentication credentials were not provided.', attr: null }],
    ['an unknown key', '/api/projects/', 'phx_unknownKey123456', 401, { code: 'authentication_failed' }],
    ['scope before project', '/api/environments/999/groups/', 'owner-exports-only', 403, { code: 'permission_denied', detail: "API key missing required scope 'group:read'" }],
    ['project before validation', '/api/environments/999/groups/', 'owner-all', 404, { code: 'not_found', detail: 'Project not found.' }],
    ['validation once the project is known', '/api/environments/1/groups/', 'owner-all', 400, { type: 'validation_error', code: 'required', attr: 'group_type_index' }],
    ['write implies read', '/api/environments/1/exports/', 'owner-exports-only', 200, {}],
    ['an unknown path', '/api/nothing-here/', 'owner-all', 404, { type: 'invalid_request', code: 'not_found' }],
  ])('%s', async (_name, path, key, status, body) => {
    const response = await call(path, key);
    expect(response.status).toBe(status);
    expect(response.json()).toMatchObject(body);
  });

  it('checks write permission before looking the member up, and the member before the body', async () => {
    const unknown = '/api/environments/1/explicit_members/01930000-0000-7000-8000-0000000000ff/';
    const patch = (label: string, body: string) => call(unknown, label, { method: 'PATCH', body, headers: { authorization: `Bearer ${sb.key(label)}`, 'content-type': 'application/json' } });
    expect((await patch('member-all', '{"level": 99}')).status).toBe(403);
    expect((await patch('owner-all', '{"level": 99}')).status).toBe(404);
    const known = `/api/environments/1/explicit_members/${SANDBOX_USERS.member.uuid}/`;
    const broken = await call(known, 'owner-all', { method: 'PATCH', body: '{level', headers: { authorization: `Bearer ${sb.key('owner-all')}` } });
    expect(broken.status).toBe(400);
    expect(broken.json()).toMatchObject({ code: 'parse_error', attr: null });
  });
});

describe('projects', () => {
  it('lists visible projects with offset paging, and @current', async () => {
    const page = (await call('/api/projects/?limit=1', 'admin-all')).json();
    expect(page).toMatchObject({ count: 2, previous: null, results: [{ id: 1 }] });
    expect(new URL(page.next as string).search).toBe('?limit=1&offset=1');
    expect((await call('/api/projects/@current/', 'member-all')).json()).toMatchObject({ id: 1 });
  });
});

describe('exports', () => {
  it('pages by 100 by default, newest first', async () => {
    for (let i = 0; i < 101; i++) {
      insertExport(sb.store, {
        team_id: 2,
        dashboard: null,
        insight: 1,
        export_format: 'text/csv',
        export_context: null,
        created_by: 1,
        created_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        filename: `f-${i}.csv`,
        expires_after: null,
      });
    }
    const first = (await call('/api/environments/2/exports/', 'owner-all')).json() as { count: number; next: string; results: Array<{ filename: string }> };
    expect(first.count).toBe(101);
    expect(first.results).toHaveLength(100);
    expect(first.results[0]!.filename).toBe('f-100.csv');
    expect(new URL(first.next).search).toBe('?limit=100&offset=100');
  });

  it('answers 425 until rendered, then the bytes with a filename on ?download=true', async () => {
    pauseExportRendering(sb.store);
    const created = await call('/api/environments/1/exports/', 'owner-all', {
      method: 'POST',
      headers: { authorization: `Bearer ${sb.key('owner-all')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ dashboard: 1, export_format: 'image/png' }),
    });
    expect(created.status).toBe(201);
    const { id, has_content, filename } = created.json() as { id: number; has_content: boolean; filename: string };
    expect(has_content).toBe(false);
    expect(filename).toMatch(/^export-migration-overview-\d{4}-\d{2}-\d{2}-\d{6}\.png$/);
    const early = await call(`/api/environments/1/exports/${id}/content/`, 'owner-all');
    expect(early.status).toBe(425);
    expect(early.json()).toMatchObject({ code: 'export_not_ready' });
    resumeExportRendering(sb.store);
    const plain = await call(`/api/environments/1/exports/${id}/content/`, 'owner-all');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('image/png');
    expect(plain.headers['content-disposition']).toBeUndefined();
    const download = await call(`/api/environments/1/exports/${id}/content/?download=true`, 'owner-all');
    expect(download.headers['content-disposition']).toBe(`attachment; filename="${filename}"`);
  });

  it.each([
    [{ insight: 1 }, 'required', 'export_format'],
    [{ insight: 1, export_format: 'image/jpeg' }, 'invalid_choice', 'export_format'],
    [{ insight: 'one', export_format: 'image/png' }, 'incorrect_type', 'insight'],
    [{ dashboard: 7, export_format: 'image/png' }, 'does_not_exist', 'dashboard'],
    [{ export_context: [1], export_format: 'image/png' }, 'invalid_input', 'export_context'],
    [{ export_format: 'image/png' }, 'invalid_input', null],
  ])('create %j -> 400 %s (attr %s)', async (body, code, attr) => {
    const response = await call('/api/environments/1/exports/', 'owner-all', {
      method: 'POST',
      headers: { authorization: `Bearer ${sb.key('owner-all')}` },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ type: 'validation_error', code, attr });
  });
});

describe('seeding', () => {
  it('seeds people and keys once per sandbox file; reopening keeps the keys', async () => {
    const dbPath = join(tempDir(), 'sandbox.db');
    const first = await startSandbox({ port: 0, dbPath });
    const keys = sandboxPersonalKeys(first.store);
    await first.close();
    const again = await startSandbox({ port: 0, dbPath });
    expect(sandboxPersonalKeys(again.store)).toEqual(keys);
    await again.close();
    expect(keys.map((k) => k.label)).toEqual(SANDBOX_KEY_SPECS.map((s) => s.label));
    for (const key of keys) expect(key.value).toMatch(/^phx_[A-Za-z0-9_-]{40}$/);
  });

  it('gives a sandbox file made before a key was added that key on its next open', async () => {
    const dbPath = join(tempDir(), 'sandbox.db');
    const first = await startSandbox({ port: 0, dbPath });
    const before = sandboxPersonalKeys(first.store);
    first.store.db.prepare("DELETE FROM personal_api_keys WHERE label = 'owner-query-only'").run();
    await first.close();
    const again = await startSandbox({ port: 0, dbPath });
    const after = sandboxPersonalKeys(again.store);
    await again.close();
    expect(after.map((k) => k.label)).toEqual(before.map((k) => k.label));
    expect(after.filter((k) => k.label !== 'owner-query-only')).toEqual(before.filter((k) => k.label !== 'owner-query-only'));
  });
});
