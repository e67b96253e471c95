/**
 * The management client against the real sandbox, in-process: throttling waited out and export
 * waits on an injected clock that never sleeps, and the 400s the CLI cannot provoke.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError, RemoteError } from '../../src/errors.js';
import { downloadWhenReady, waitForExport } from '../../src/management/export-wait.js';
import type { ExportRequest, ManagementApi } from '../../src/management/management-api.js';
import { MANAGEMENT_RETRY_POLICY } from '../../src/management/management-client.js';
import type { Export } from '../../src/management/management-schemas.js';
import type { ProjectLevel } from '../../src/management/members/member-levels.js';
import { groupsPageSchema } from '../../src/management/management-schemas.js';
import { pauseExportRendering, resumeExportRendering } from '../../src/sandbox/api/export-scheduler.js';
import { SANDBOX_USERS } from '../../src/sandbox/api/management-seed.js';
import { useClients } from '../helpers/management-client.js';
import { testClock } from '../helpers/test-clock.js';
import { startManagementSandbox, type ManagementSandbox } from '../helpers/management-sandbox.js';

async function createdExport(api: ManagementApi, request: ExportRequest): Promise<Export> {
  const answer = await api.createExport(request);
  if (answer.type !== 'created') throw new Error(`no answer: ${answer.type}`);
  return answer.export;
}

let clock = Date.parse('2026-03-01T12:00:00Z');
let sb: ManagementSandbox;
const clientFor = useClients();

beforeAll(async () => {
  sb = await startManagementSandbox({ now: () => new Date(clock) });
});
afterAll(() => sb.sandbox.close());

describe('throttling', () => {
  it('waits the time a 429 states, on the injected clock, then succeeds', async () => {
    const waiting = testClock(clock, (ms) => (clock += ms));
    const { api, client } = clientFor(sb.sandbox.url, sb.key('admin-read-only'), { clock: waiting, onThrottle: () => {} });
    for (let i = 0; i < 480; i++) {
      const reply = await client.send({ method: 'GET', path: '/api/projects/1/groups_types/' });
      expect(reply.status).toBe(200);
    }
    expect(await api.listGroupTypes()).toEqual([]);
    expect(waiting.waits).toEqual([60_000]);
  });

  it('gives up with a plain message once the wait budget is spent', async () => {
    const { api, client } = clientFor(sb.sandbox.url, sb.key('member-all'), { retryPolicy: { ...MANAGEMENT_RETRY_POLICY, maxTotalWaitMs: 60_000 } });
    for (let i = 0; i < 480; i++) await client.send({ method: 'GET', path: '/api/projects/1/groups_types/' });
    await expect(api.listGroupTypes()).rejects.toThrow(/kept throttling the requests \(429\): Request was throttled. Expected available in 60 seconds./);
  });
});

describe('validation errors the CLI does not let through', () => {
  it('names attr level for a level that is not 1 or 8', async () => {
    const { api } = clientFor(sb.sandbox.url, sb.key('owner-all'));
    const error = await api.members.update(SANDBOX_USERS.member.uuid, 15 as ProjectLevel).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteError);
    expect((error as Error).message).toBe(`the API refused the request: level: "15" is not a valid choice. (400 invalid_choice), answered by ${new URL(sb.sandbox.url).host}`);
  });

  it('asks for a dashboard, insight or context', async () => {
    const { api } = clientFor(sb.sandbox.url, sb.key('owner-all'));
    await expect(api.createExport({ export_format: 'image/png' })).rejects.toThrow(
      'the API refused the request: Either dashboard, insight or export_context is required for an export. (400 invalid_input)',
    );
  });

  it('a create within its bound answers with the export PostHog rendered before answering', async () => {
    const { api } = clientFor(sb.sandbox.url, sb.key('owner-all'));
    const answer = await api.createExport({ insight: 1, export_format: 'text/csv' }, { timeoutMs: 60_000 });
    expect(answer).toMatchObject({ type: 'created', export: { insight: 1, has_content: true } });
  });

  it('names group_type_index when it is missing or not a number', async () => {
    const { client } = clientFor(sb.sandbox.url, sb.key('owner-all'));
    await expect(client.json({ method: 'GET', path: '/api/environments/1/groups/' }, groupsPageSchema)).rejects.toThrow(
      'the API refused the request: group_type_index: This field is required. (400 required)',
    );
    await expect(client.json({ method: 'GET', path: '/api/environments/1/groups/', query: { group_type_index: 'x' } }, groupsPageSchema)).rejects.toThrow(
      'group_type_index: A valid integer is required. (400 invalid_input)',
    );
  });

  it('refuses a project key outright, before any request', () => {
    expect(() => clientFor(sb.sandbox.url, 'phc_sandboxTestProjectToken0001')).toThrow('not a project key (phc_...)');
  });

  it('turns a refused key into an AuthError', async () => {
    const { api } = clientFor(sb.sandbox.url, 'phx_not_a_key_of_this_sandbox');
    await expect(api.listProjects()).rejects.toBeInstanceOf(AuthError);
  });
});

describe('waiting for an export', () => {
  it('polls until rendered, waiting only on the injected clock', async () => {
    const { api } = clientFor(sb.sandbox.url, sb.key('owner-all'));
    pauseExportRendering(sb.store);
    const created = await createdExport(api, { insight: 1, export_format: 'text/csv' });
    const polling = testClock(clock, () => polling.waits.length === 2 && resumeExportRendering(sb.store));
    const ready = await waitForExport(api, created.id, { pollIntervalMs: 250, timeoutMs: 10_000, clock: polling });
    expect(ready.has_content).toBe(true);
    expect(polling.waits).toEqual([250, 250]);
  });

  it('downloads once the content stops answering 425, and gives up at the bound', async () => {
    const { api } = clientFor(sb.sandbox.url, sb.key('owner-all'));
    pauseExportRendering(sb.store);
    const created = await createdExport(api, { insight: 1, export_format: 'application/json' });
    const waiting = testClock(0);
    const options = { pollIntervalMs: 1000, timeoutMs: 5000, clock: waiting };
    await expect(downloadWhenReady(api, created.id, options)).rejects.toThrow(`export ${created.id} is still not ready after 5 s`);
    expect(waiting.now()).toBe(5000);
    resumeExportRendering(sb.store);
    const content = await downloadWhenReady(api, created.id, options);
    expect(content.contentType).toBe('application/json');
    expect(content.filename).toBe(created.filename);
    expect(JSON.parse(content.bytes.toString())).toMatchObject({ title: 'Events per day', total: 0 });
  });
});
