/** `migrate projects list` and `migrate group-types list` against the sandbox; key and config errors. */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTempDir } from '../helpers/temp-dir.js';
import { insertGroupType, startManagementSandbox, type ManagementSandbox } from '../helpers/management-sandbox.js';

let sb: ManagementSandbox;
const tempDir = useTempDir();

beforeAll(async () => {
  sb = await startManagementSandbox();
  insertGroupType(sb.store, 1, 0, 'company');
  insertGroupType(sb.store, 1, 1, 'team');
  // A type PostHog made from ingested events, never given a display name.
  sb.store.db.prepare('INSERT INTO group_types (team_id, group_type, group_type_index, name_singular, name_plural) VALUES (1, ?, 2, NULL, NULL)').run('region');
});
afterAll(() => sb.sandbox.close());

/** The projects as the sandbox holds them (seeded by the sandbox or by the test helper). */
function storedProjects(): Array<{ id: number; name: string; api_token: string }> {
  return sb.store.db.prepare('SELECT id, name, api_token FROM projects ORDER BY id').all() as Array<{ id: number; name: string; api_token: string }>;
}

function expectNoKeys(text: string): void {
  for (const label of ['owner-all', 'admin-all', 'admin-read-only', 'member-all', 'owner-exports-only']) expect(text).not.toContain(sb.key(label));
  for (const project of storedProjects()) expect(text).not.toContain(project.api_token);
}

describe('migrate projects list', () => {
  it('prints the projects the key can see as a table', async () => {
    const config = sb.writeConfig(tempDir(), { test: {} });
    const result = await sb.cli(config, ['projects', 'list', '--project', 'test']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toMatch(/^id\s+name\s+organization\s+timezone$/);
    for (const project of storedProjects()) expect(result.stdout).toMatch(new RegExp(`^${project.id}\\s+${project.name}\\s`, 'm'));
  });

  it('prints JSON with --json, project tokens redacted', async () => {
    const config = sb.writeConfig(tempDir(), { test: {} });
    const result = await sb.cli(config, ['projects', 'list', '--project', 'test', '--json']);
    expect(result.code).toBe(0);
    const projects = JSON.parse(result.stdout) as Array<{ id: number; api_token: string }>;
    expect(projects.map((p) => p.id)).toEqual([1, 2]);
    expect(projects[0]!.api_token).toBe('phc_[redacted]');
    expectNoKeys(result.stdout + result.stderr);
  });

  it('reads the key from personalApiKeyEnv', async () => {
    const config = sb.writeConfig(tempDir(), { test: { keyEnv: 'SANDBOX_PERSONAL_KEY' } });
    const ok = await sb.cli(config, ['projects', 'list', '--project', 'test'], { SANDBOX_PERSONAL_KEY: sb.key('admin-all') });
    expect(ok.code).toBe(0);
    const missing = await sb.cli(config, ['projects', 'list', '--project', 'test'], { SANDBOX_PERSONAL_KEY: '' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('projects.test.personalApiKeyEnv: environment variable SANDBOX_PERSONAL_KEY is not set');
  });
});

describe('migrate group-types list', () => {
  it('prints the group types with their indexes, and - where PostHog has no display name', async () => {
    const config = sb.writeConfig(tempDir(), { test: { key: 'admin-read-only' } });
    const result = await sb.cli(config, ['group-types', 'list', '--project', 'test']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/index\s+type\s+singular name\s+plural name\n0\s+company\s+company\s+companys\n1\s+team\s+team\s+teams\n2\s+region\s+-\s+-\n/);
    const json = await sb.cli(config, ['group-types', 'list', '--project', 'test', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([
      { group_type: 'company', group_type_index: 0, name_singular: 'company', name_plural: 'companys' },
      { group_type: 'team', group_type_index: 1, name_singular: 'team', name_plural: 'teams' },
      { group_type: 'region', group_type_index: 2, name_singular: null, name_plural: null },
    ]);
  });

  it('says so when the project has none', async () => {
    const config = sb.writeConfig(tempDir(), { prod: { projectId: 2 } });
    const result = await sb.cli(config, ['group-types', 'list', '--project', 'prod']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No group types yet');
  });
});

describe('errors', () => {
  it('401: says the key is invalid, exit 4, without printing it', async () => {
    const config = sb.writeConfig(tempDir(), { test: { key: 'phx_thisKeyDoesNotExistAnywhere' } });
    const result = await sb.cli(config, ['projects', 'list', '--project', 'test']);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('error: the personal API key is invalid: the API refused it (401 authentication_failed)');
    expect(result.stderr).toContain('Check personalApiKey (or personalApiKeyEnv) of project "test"');
    expect(result.stderr + result.stdout).not.toContain('thisKeyDoesNotExistAnywhere');
  });

  it('403: names the missing scope, exit 4', async () => {
    const config = sb.writeConfig(tempDir(), { test: { key: 'owner-exports-only' } });
    const result = await sb.cli(config, ['group-types', 'list', '--project', 'test']);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("error: the personal API key lacks the scope 'group:read' (403)");
    expectNoKeys(result.stderr);
  });

  it('404: an unknown project id, exit 8', async () => {
    const config = sb.writeConfig(tempDir(), { test: { projectId: 999 } });
    const result = await sb.cli(config, ['group-types', 'list', '--project', 'test']);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain('error: project 999 was not found (404), or the key cannot see it');
  });

  it('a project missing from the config is a usage error', async () => {
    const config = sb.writeConfig(tempDir(), { test: {} });
    const result = await sb.cli(config, ['projects', 'list', '--project', 'prod']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no project named "prod" in the config');
  });

  it('--project is required', async () => {
    const config = sb.writeConfig(tempDir(), { test: {} });
    const result = await sb.cli(config, ['projects', 'list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("required option '--project <name>' not specified");
  });

  it('an API host nobody listens on, exit 8', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const config = sb.writeConfig(tempDir(), { test: { apiHost: `http://127.0.0.1:${port}` } });
    const result = await sb.cli(config, ['projects', 'list', '--project', 'test']);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(`error: cannot reach http://127.0.0.1:${port} (ECONNREFUSED)`);
  });
});
