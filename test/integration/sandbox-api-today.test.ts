/**
 * What today's PostHog does that later commands rely on: the flags token check, exports that
 * render before answering (scopes, visibility, a slow renderer, the older 404-until-ready),
 * the notebook groups/find/ makes, charts over the whole event range, the /api/projects/ prefix.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nextNotReady, pauseExportRendering, resumeExportRendering } from '../../src/sandbox/api/export-scheduler.js';
import { INVALID_TOKEN, MISSING_DISTINCT_ID, NO_TOKEN } from '../../src/sandbox/api/flags-routes.js';
import type { ApiOptions } from '../../src/sandbox/api/api-routes.js';
import { apiCaller } from '../helpers/api-call.js';
import { insertEvents, insertGroups, insertGroupType, startManagementSandbox, type ManagementSandbox } from '../helpers/management-sandbox.js';
import { sandboxTokens } from '../helpers/sandbox.js';

let shared: ManagementSandbox;
let current: ManagementSandbox;
const extra: ManagementSandbox[] = [];
const call = apiCaller(
  () => current.sandbox.url,
  (label) => current.key(label),
);

async function own(api: ApiOptions): Promise<ManagementSandbox> {
  current = await startManagementSandbox({ api });
  extra.push(current);
  return current;
}

beforeAll(async () => {
  shared = await startManagementSandbox();
  insertGroupType(shared.store, 1, 0, 'company');
  insertGroups(shared.store, 1, 0, 3);
});
afterEach(async () => {
  for (const sb of extra.splice(0)) await sb.sandbox.close();
  current = shared;
});
afterAll(async () => {
  await call.close();
  await shared.sandbox.close();
});

describe('POST /flags/', () => {
  it.each<[string, string, (t: { test: string }) => unknown, number, unknown]>([
    [
      'v2 for a project token',
      '/flags/?v=2',
      (t) => ({ token: t.test, distinct_id: 'doctor' }),
      200,
      { errorsWhileComputingFlags: false, flags: {}, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    ],
    ['api_key in place of token', '/flags?v=2', (t) => ({ api_key: t.test, distinct_id: 'doctor' }), 200, { errorsWhileComputingFlags: false, flags: {}, requestId: expect.any(String) }],
    [
      'the legacy shape without v=2',
      '/flags/',
      (t) => ({ token: t.test, distinct_id: 'doctor' }),
      200,
      { errorsWhileComputingFlags: false, featureFlags: {}, featureFlagPayloads: {}, requestId: expect.any(String) },
    ],
    ['an unknown token', '/flags/?v=2', () => ({ token: 'phc_notAProjectOfThisSandbox', distinct_id: 'doctor' }), 401, INVALID_TOKEN],
    ['a personal key as token', '/flags/?v=2', () => ({ token: 'phx_personal', distinct_id: 'doctor' }), 401, INVALID_TOKEN],
    ['no token', '/flags/?v=2', () => ({ distinct_id: 'doctor' }), 401, NO_TOKEN],
    ['no distinct_id', '/flags/?v=2', (t) => ({ token: t.test }), 400, MISSING_DISTINCT_ID],
  ])('%s', async (_name, path, body, status, expected) => {
    current = shared;
    const reply = await call('POST', path, null, body(sandboxTokens(shared.sandbox)));
    expect(reply.status).toBe(status);
    if (typeof expected === 'string') {
      expect(reply.headers['content-type']).toMatch(/^text\/plain/);
      expect(reply.text).toBe(expected);
    } else expect(reply.json()).toEqual(expected);
  });
});

describe('exports', () => {
  it('renders before answering the create, under /api/projects/ too', async () => {
    current = shared;
    const reply = await call('POST', '/api/projects/1/exports/', 'owner-all', { insight: 1, export_format: 'text/csv' });
    expect(reply.status).toBe(201);
    expect(reply.json()).toMatchObject({ has_content: true, exception: null });
    expect((await call('GET', `/api/projects/1/exports/${reply.json<{ id: number }>().id}/content/`, 'owner-all')).text).toMatch(/^day,events\n/);
  });

  it.each<[string, string, Record<string, unknown>, number, Record<string, unknown>]>([
    [
      'an insight export needs insight:read',
      'owner-exports-only',
      { insight: 1, export_format: 'image/png' },
      403,
      { code: 'permission_denied', detail: "API key missing required scope 'insight:read'" },
    ],
    ['a dashboard export needs dashboard:read', 'owner-exports-only', { dashboard: 1, export_format: 'image/png' }, 403, { detail: "API key missing required scope 'dashboard:read'" }],
    ['an export_context export needs export:write only', 'owner-exports-only', { export_context: { event: 'x' }, export_format: 'text/csv' }, 201, { has_content: true }],
    [
      'video needs a session recording',
      'owner-all',
      { insight: 1, export_format: 'video/mp4' },
      400,
      { type: 'validation_error', code: 'invalid_input', detail: 'Video export supports session recordings only.', attr: 'export_format' },
    ],
    ['so does a GIF', 'owner-all', { dashboard: 1, export_format: 'image/gif' }, 400, { detail: 'Video export supports session recordings only.' }],
    [
      'a recording the sandbox cannot render fails on the export',
      'owner-all',
      { export_context: { session_recording_id: 'r1' }, export_format: 'video/webm' },
      201,
      { has_content: false, exception: expect.stringContaining('video/webm is not available here') },
    ],
  ])('%s', async (_name, key, body, status, expected) => {
    current = shared;
    const reply = await call('POST', '/api/environments/1/exports/', key, body);
    expect(reply.status).toBe(status);
    expect(reply.json()).toMatchObject(expected);
  });

  it('shows each user only the exports they created', async () => {
    await own({});
    const mine = (await call('POST', '/api/projects/1/exports/', 'admin-all', { insight: 1, export_format: 'application/json' })).json<{ id: number }>();
    expect((await call('GET', '/api/projects/1/exports/', 'owner-all')).json()).toMatchObject({ count: 0, results: [] });
    expect((await call('GET', `/api/projects/1/exports/${mine.id}/`, 'owner-all')).status).toBe(404);
    expect((await call('GET', `/api/projects/1/exports/${mine.id}/content/`, 'owner-all')).status).toBe(404);
    expect((await call('GET', '/api/projects/1/exports/', 'admin-all')).json()).toMatchObject({ count: 1, results: [{ id: mine.id }] });
  });

  it('holds the create answer for the render time (a client timeout can be tried against it)', async () => {
    let release: () => void = () => {};
    const waits: number[] = [];
    await own({
      exportRenderMs: 90_000,
      sleep: (ms) =>
        new Promise<void>((resolve) => {
          waits.push(ms);
          release = resolve;
        }),
    });
    let answered = false;
    const pending = call('POST', '/api/projects/1/exports/', 'owner-all', { dashboard: 1, export_format: 'image/png' }).then((reply) => ((answered = true), reply));
    while (waits.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(waits).toEqual([90_000]);
    expect(answered).toBe(false);
    release();
    const reply = await pending;
    expect([reply.status, reply.json().has_content]).toEqual([201, true]);
  });

  it('answers content 404 until rendered with exportContent404UntilReady (older self-hosted), 425 otherwise', async () => {
    for (const [api, status] of [
      [{ exportContent404UntilReady: true }, 404],
      [{}, 425],
    ] as const) {
      const sb = await own(api);
      pauseExportRendering(sb.store);
      const { id, has_content } = (await call('POST', '/api/projects/1/exports/', 'owner-all', { insight: 1, export_format: 'text/csv' })).json<{ id: number; has_content: boolean }>();
      expect(has_content).toBe(false);
      const notReady = nextNotReady(sb.store);
      expect((await call('GET', `/api/projects/1/exports/${id}/content/`, 'owner-all')).status).toBe(status);
      expect(await notReady).toBe(id);
      resumeExportRendering(sb.store);
      expect((await call('GET', `/api/projects/1/exports/${id}/content/`, 'owner-all')).status).toBe(200);
    }
  });

  it('charts the range that holds the events, however old: two years of migrated events come out weekly', async () => {
    const sb = await own({});
    const days = Array.from({ length: 365 }, (_, i) => ({ event: '$pageview', timestamp: new Date(Date.UTC(2019, 0, 2) + i * 2 * 86_400_000).toISOString() }));
    insertEvents(sb.store, 1, days);
    const { id } = (await call('POST', '/api/projects/1/exports/', 'owner-all', { insight: 2, export_format: 'application/json' })).json<{ id: number }>();
    const chart = JSON.parse((await call('GET', `/api/projects/1/exports/${id}/content/`, 'owner-all')).text) as { interval: string; total: number; points: Array<{ day: string }> };
    expect(chart).toMatchObject({ interval: 'week', total: 365 });
    expect([chart.points[0]!.day, chart.points[chart.points.length - 1]!.day]).toEqual(['2018-12-31', '2020-12-28']);
  });
});

describe('groups/find/ and its notebook', () => {
  it('makes one notebook per group unless skip_create_notebook=true, and /_sandbox/notebooks counts them', async () => {
    const sb = await own({});
    insertGroupType(sb.store, 1, 0, 'company');
    insertGroups(sb.store, 1, 0, 3);
    const notebooks = async () => (await call('GET', '/_sandbox/notebooks', null)).json<{ count: number }>().count;
    const skipped = await call('GET', '/api/projects/1/groups/find/?group_type_index=0&group_key=org-1&skip_create_notebook=true', 'owner-all');
    expect(skipped.json()).toMatchObject({ group_key: 'org-1', notebook: null });
    expect(await notebooks()).toBe(0);
    const found = (await call('GET', '/api/environments/1/groups/find/?group_type_index=0&group_key=org-1', 'admin-read-only')).json<{ notebook: string }>();
    expect(found.notebook).toMatch(/^[A-Za-z0-9]{8}$/);
    expect((await call('GET', '/api/projects/1/groups/find/?group_type_index=0&group_key=org-1', 'owner-all')).json()).toMatchObject({ notebook: found.notebook });
    expect((await call('GET', '/_sandbox/notebooks', null)).json()).toMatchObject({
      count: 1,
      results: [{ short_id: found.notebook, title: 'org number 1 Notes', group_key: 'org-1', created_by: 2 }],
    });
    expect((await call('GET', '/api/projects/1/groups/find/?group_type_index=0&group_key=missing', 'owner-all')).status).toBe(404);
    expect(await notebooks()).toBe(1);
  });
});

describe('prefixes and retired paths', () => {
  it.each([
    ['/api/projects/1/groups_types/', 200],
    ['/api/environments/1/groups_types/', 200],
    ['/api/projects/1/groups/?group_type_index=0', 200],
    ['/api/projects/1/', 200],
  ])('%s answers %i', async (path, status) => {
    current = shared;
    expect((await call('GET', path, 'owner-all')).status).toBe(status);
  });

  it('answers an unrouted /api/ path with "Endpoint not found." before asking for credentials', async () => {
    current = shared;
    expect((await call('GET', '/api/projects/1/no_such_thing/', null)).json()).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Endpoint not found.', attr: null });
  });
});
