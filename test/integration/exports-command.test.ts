/** `migrate exports list|create|get|download` against the sandbox's renderer. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertExport } from '../../src/sandbox/api/export-store.js';
import { pauseExportRendering, resumeExportRendering } from '../../src/sandbox/api/export-scheduler.js';
import { RECORDING_HINT, SOURCE_SCOPE_HINT } from '../../src/management/export-create.js';
import { EXPORT_VISIBILITY_HINT } from '../../src/management/management-api.js';
import { startRelay } from '../helpers/loopback-servers.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { insertEvents, startManagementSandbox, type ManagementSandbox } from '../helpers/management-sandbox.js';

let sb: ManagementSandbox;
const tempDir = useTempDir();
const FAST = ['--poll-interval-ms', '0'];

beforeAll(async () => {
  sb = await startManagementSandbox();
  insertEvents(sb.store, 1, [
    { event: '$pageview', timestamp: '2025-09-01T10:00:00.000Z' },
    { event: '$pageview', timestamp: '2025-09-01T11:00:00.000Z' },
    { event: 'signed_up', timestamp: '2025-09-01T12:00:00.000Z' },
    { event: '$pageview', timestamp: '2025-09-03T09:00:00.000Z' },
  ]);
});
afterAll(() => sb.sandbox.close());

function setup(key = 'owner-all', projectId = 1) {
  const dir = tempDir();
  const config = sb.writeConfig(dir, { test: { key, projectId } });
  return { dir, run: (args: string[]) => sb.cli(config, ['exports', ...args, '--project', 'test']), config };
}

describe('migrate exports create / get / download', () => {
  it('create --output waits for the chart and saves a PNG', async () => {
    const { dir, run } = setup();
    const result = await run(['create', '--insight', '1', '--format', 'image/png', '--output', 'chart.png', ...FAST]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Export \d+ created \(image\/png\)\.$/m);
    expect(result.stdout).toMatch(/^status\s+ready$/m);
    expect(result.stdout).toMatch(/^filename\s+export-events-per-day-\d{4}-\d{2}-\d{2}-\d{6}\.png$/m);
    const png = readFileSync(join(dir, 'chart.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([800, 400]);
  });

  it('create --wait --json, then get and download the CSV by its id', async () => {
    const { dir, run } = setup();
    const created = await run(['create', '--context', '{"event":"$pageview","title":"Pageviews"}', '--format', 'text/csv', '--wait', '--json', ...FAST]);
    expect(created.code).toBe(0);
    const exported = JSON.parse(created.stdout) as { id: number; has_content: boolean; filename: string };
    expect(exported).toMatchObject({ has_content: true, export_context: { event: '$pageview' } });
    expect(exported.filename).toMatch(/^export-pageviews-\d{4}-\d{2}-\d{2}-\d{6}\.csv$/);

    const got = await run(['get', String(exported.id)]);
    expect(got.stdout).toMatch(/^source\s+context$/m);
    const downloaded = await run(['download', String(exported.id), ...FAST]);
    expect(downloaded.code).toBe(0);
    expect(downloaded.stdout).toContain(`Saved ${join(dir, exported.filename)}`);
    expect(readFileSync(join(dir, exported.filename), 'utf8')).toBe('day,$pageview\n2025-09-01,2\n2025-09-02,0\n2025-09-03,1\n');
  });

  it('download refuses to replace a file unless --force', async () => {
    const { dir, run } = setup();
    const created = JSON.parse((await run(['create', '--insight', '2', '--format', 'application/json', '--wait', '--json', ...FAST])).stdout) as { id: number };
    expect((await run(['download', String(created.id), '-o', 'out.json'])).code).toBe(0);
    const again = await run(['download', String(created.id), '-o', 'out.json']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${join(dir, 'out.json')} exists already`);
    const forced = await run(['download', String(created.id), '-o', 'out.json', '--force', '--json']);
    expect(JSON.parse(forced.stdout)).toMatchObject({ id: created.id, file: join(dir, 'out.json'), content_type: 'application/json' });
    expect(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'))).toMatchObject({ title: 'Pageviews per day', total: 3 });
  });

  it('download waits until the export has content before asking for it, without sleeping in the test', async () => {
    const dir = tempDir();
    pauseExportRendering(sb.store);
    const id = insertExport(sb.store, {
      team_id: 1,
      dashboard: 1,
      insight: null,
      export_format: 'image/png',
      export_context: null,
      created_by: 1,
      created_at: '2026-01-01T00:00:00.000Z',
      filename: 'export-migration-overview-2026-01-01-000000.png',
      expires_after: null,
    });
    let polls = 0;
    const relay = await startRelay(sb.sandbox.url, {
      onRequest: (seen) => {
        if (seen.url.startsWith(`/api/projects/1/exports/${id}/?`) || seen.url === `/api/projects/1/exports/${id}/`) polls++;
        if (polls === 2) resumeExportRendering(sb.store);
      },
    });
    try {
      const config = sb.writeConfig(dir, { test: { apiHost: relay.url, host: sb.sandbox.url } });
      const result = await sb.cli(config, ['exports', 'download', String(id), '--project', 'test', ...FAST]);
      expect(result.code).toBe(0);
      expect(existsSync(join(dir, 'export-migration-overview-2026-01-01-000000.png'))).toBe(true);
      const asked = relay.requests.map((r) => r.url.split('?')[0]!);
      expect(asked.filter((u) => u.endsWith('/content/'))).toHaveLength(1);
      expect(asked.indexOf(`/api/projects/1/exports/${id}/content/`)).toBe(asked.length - 1);
    } finally {
      resumeExportRendering(sb.store);
      await relay.close();
    }
  });

  it('download gives up at --wait-timeout-ms (exit 8)', async () => {
    const { run } = setup();
    pauseExportRendering(sb.store);
    const created = JSON.parse((await run(['create', '--insight', '1', '--format', 'text/csv', '--json'])).stdout) as { id: number };
    const result = await run(['download', String(created.id), '--wait-timeout-ms', '0']);
    resumeExportRendering(sb.store);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(`error: export ${created.id} is still not ready after 0 s`);
    expect(result.stderr).toContain(`Try again later: migrate exports download ${created.id}`);
  });

  it.each([
    [
      '400 names attr',
      'owner-all',
      ['create', '--insight', '99', '--format', 'image/png'],
      8,
      'error: the API refused the request: insight: Invalid pk "99" - object does not exist. (400 does_not_exist)',
    ],
    ['403 names the scope', 'admin-read-only', ['create', '--insight', '1', '--format', 'image/png'], 4, "error: the personal API key lacks the scope 'export:write' (403)"],
    [
      'an insight export needs insight:read',
      'owner-exports-only',
      ['create', '--insight', '1', '--format', 'image/png'],
      4,
      "error: the personal API key lacks the scope 'insight:read' (403), answered by 127.0.0.1:",
    ],
    ['a dashboard export needs dashboard:read', 'owner-exports-only', ['create', '--dashboard', '1', '--format', 'image/png'], 4, SOURCE_SCOPE_HINT],
    [
      'video needs a session recording',
      'owner-all',
      ['create', '--insight', '1', '--format', 'video/mp4'],
      8,
      `error: the API refused the request: export_format: Video export supports session recordings only. (400 invalid_input), answered by 127.0.0.1:`,
    ],
    ['a GIF says how to give the recording', 'owner-all', ['create', '--insight', '1', '--format', 'image/gif'], 8, RECORDING_HINT],
    ['404 for an unknown export', 'owner-all', ['get', '9999'], 8, 'error: export 9999 was not found in project 1 (404: Not found.)'],
    ['404 for unknown content', 'owner-all', ['download', '9999'], 8, 'error: export 9999 was not found in project 1 (404: Not found.)'],
    [
      'a format the sandbox cannot render',
      'owner-all',
      ['create', '--dashboard', '1', '--format', 'application/pdf', '--wait', ...FAST],
      8,
      'failed to render: The sandbox renders image/png, text/csv, application/json; application/pdf is not available here.',
    ],
    ['no source', 'owner-all', ['create', '--format', 'image/png'], 2, 'error: give exactly one of --dashboard <id>, --insight <id> or --context <json>'],
    ['an unknown format', 'owner-all', ['create', '--insight', '1', '--format', 'image/jpeg'], 2, 'error: --format image/jpeg: use one of image/png'],
    ['--format is required', 'owner-all', ['create', '--insight', '1'], 2, "required option '--format <media type>' not specified"],
  ])('%s', async (_name, key, args, code, message) => {
    const result = await setup(key).run(args as string[]);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
  });
});

describe('who sees an export', () => {
  it("only its creator: a colleague's list leaves it out, and get or download of its id is 404 saying why", async () => {
    const created = JSON.parse((await setup('owner-all').run(['create', '--insight', '2', '--format', 'text/csv', '--json', ...FAST])).stdout) as { id: number };
    const colleague = setup('admin-all');
    const listed = JSON.parse((await colleague.run(['list', '--all', '--json'])).stdout) as Array<{ id: number }>;
    expect(listed.map((e) => e.id)).not.toContain(created.id);
    for (const args of [
      ['get', String(created.id)],
      ['download', String(created.id), ...FAST],
    ]) {
      const result = await colleague.run(args);
      expect(result.code).toBe(8);
      expect(result.stderr).toContain(`error: export ${created.id} was not found in project 1 (404: Not found.)`);
      expect(result.stderr).toContain(EXPORT_VISIBILITY_HINT);
    }
  });

  it('says so in --help', async () => {
    const help = await setup().run(['get', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('Exports are visible only to the user who created them.');
    const create = await setup().run(['create', '--help']);
    expect(create.stdout.replace(/\s+/g, ' ')).toContain('Scopes: export:write, plus insight:read for --insight or dashboard:read for --dashboard.');
    expect(create.stdout.replace(/\s+/g, ' ')).toContain('video/mp4, video/webm and image/gif need its session_recording_id');
  });
});

describe('migrate exports list', () => {
  beforeAll(() => {
    sb.store.transaction(() => {
      for (let i = 0; i < 130; i++) {
        const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000);
        insertExport(sb.store, {
          team_id: 2,
          dashboard: null,
          insight: 1,
          export_format: 'text/csv',
          export_context: null,
          created_by: 1,
          created_at: at.toISOString(),
          filename: `export-events-per-day-${i}.csv`,
          expires_after: null,
        });
      }
    });
  });

  it('prints the newest 100 and says how to see more', async () => {
    const result = await setup('owner-all', 2).run(['list']);
    expect(result.code).toBe(0);
    const rows = result.stdout.split('\n').filter((line) => /^\d+\s/.test(line));
    expect(rows).toHaveLength(100);
    expect(rows[0]).toContain('export-events-per-day-129.csv');
    expect(result.stdout).toContain('Exports 1-100 of 130. More: --offset 100, or --all.');
  });

  it('--offset pages on; --limit sets the page size', async () => {
    const { run } = setup('owner-all', 2);
    const second = await run(['list', '--offset', '100']);
    expect(second.stdout.split('\n').filter((line) => /^\d+\s/.test(line))).toHaveLength(30);
    expect(second.stdout).toContain('Exports 101-130 of 130.');
    const page = JSON.parse((await run(['list', '--limit', '10', '--offset', '5', '--json'])).stdout) as { count: number; results: unknown[]; next: string };
    expect(page.count).toBe(130);
    expect(page.results).toHaveLength(10);
    expect(new URL(page.next).searchParams.get('offset')).toBe('15');
  });

  it('--all follows the next links across pages', async () => {
    // Exports are listed to their creator only: the owner made these.
    const result = await setup('owner-all', 2).run(['list', '--all', '--json']);
    expect(result.code).toBe(0);
    const all = JSON.parse(result.stdout) as Array<{ id: number; filename: string }>;
    expect(all).toHaveLength(130);
    expect(new Set(all.map((e) => e.id)).size).toBe(130);
    expect(all[129]!.filename).toBe('export-events-per-day-0.csv');
  });

  it('--all with --limit is a usage error', async () => {
    const result = await setup('owner-all', 2).run(['list', '--all', '--limit', '5']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--all reads every page; give it without --limit and --offset');
  });
});
