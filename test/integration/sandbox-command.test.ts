/** `migrate sandbox` as users run it, and `npm run demo` (the README quickstart). */
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiCaller } from '../helpers/api-call.js';
import { nodeOptionsWithFlags, runCli, startCli } from '../helpers/run-cli.js';
import { FAST, SAMPLE_EVENTS, deliveredCount, stageSample } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { runDemo } from '../../scripts/demo-steps.mjs';

/** Resolves with the child's stdout once it contains `marker` (a line end by default). */
function outputUntil(child: ReturnType<typeof startCli>['child'], marker = '\n'): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer | string) => {
      out += d.toString();
      if (out.includes(marker)) resolve(out);
    });
    child.once('close', (code) => reject(new Error(`sandbox exited with ${code} before printing ${marker}`)));
  });
}

describe('migrate sandbox', () => {
  const tempDir = useTempDir();

  it('prints its url and project keys, takes an import, and stops cleanly on SIGTERM', async () => {
    const dir = tempDir();
    const sandbox = startCli(['sandbox', '--port', '0', '--db', join(dir, 'sb.db'), '--json'], { cwd: dir });
    const info = JSON.parse((await outputUntil(sandbox.child)).split('\n')[0]!) as { url: string; projects: Array<{ id: number; role: string; apiKey: string }> };
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.projects.map((p) => [p.id, p.role])).toEqual([
      [1, 'test'],
      [2, 'production'],
    ]);
    expect(info.projects[0]!.apiKey).toMatch(/^phc_[A-Za-z0-9]{43}$/);

    const config = join(dir, 'migrate.config.json');
    writeFileSync(config, JSON.stringify({ projects: { test: { role: 'test', host: info.url, apiKey: info.projects[0]!.apiKey } } }));
    const staging = await stageSample(dir);
    const result = await runCli(['import', '--project', 'test', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(deliveredCount(staging, 'test')).toBe(SAMPLE_EVENTS);

    sandbox.child.kill('SIGTERM');
    const end = await sandbox.done;
    expect(end.code).toBe(0);
    expect(end.stdout).toContain(`"1": ${SAMPLE_EVENTS}`);
  });

  it('shows the keys and a config snippet to paste in its banner', async () => {
    const dir = tempDir();
    const sandbox = startCli(['sandbox', '--port', '0', '--db', join(dir, 'sb.db'), '--fail-503', '0.2', '--drop', '0.05'], { cwd: dir });
    await outputUntil(sandbox.child, 'Stop with Ctrl-C.');
    sandbox.child.kill('SIGINT');
    const { code, stdout } = await sandbox.done;
    expect(code).toBe(0);
    expect(stdout).toMatch(/PostHog-compatible sandbox on http:\/\/127\.0\.0\.1:\d+/);
    expect(stdout).toMatch(/1 {2}Test project {8}phc_[A-Za-z0-9]{43}/);
    const snippet = JSON.parse(stdout.slice(stdout.indexOf('{'), stdout.indexOf('\n}') + 2)) as { projects: Record<string, { apiKey: string; role: string }> };
    expect(snippet.projects.test!.apiKey).toMatch(/^phc_/);
    expect(snippet.projects.prod!.role).toBe('production');
    expect(stdout).toContain('Faults: 20% HTTP 503, 5% dropped connections; unknown tokens refused with 401');
  });

  it('says a port in use is in use, exits with the usage code and leaves no store behind', async () => {
    const dir = tempDir();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((blocker.address() as { port: number }).port);
      const result = await runCli(['sandbox', '--port', port, '--db', join(dir, 'sb.db')], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`port ${port} on 127.0.0.1 is in use`);
      expect(result.stderr).toContain('--port 0');
      expect(result.stderr).not.toMatch(/unexpected failure|\n\s+at /);
      expect(existsSync(join(dir, 'sb.db'))).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it('shows the capture settings in its banner', async () => {
    const dir = tempDir();
    const args = ['sandbox', '--port', '0', '--db', ':memory:', '--unknown-tokens', 'accept-and-drop', '--over-quota', '--lose-after-accept', '0.1', '--max-event-bytes', '5000'];
    const sandbox = startCli(args, { cwd: dir });
    await outputUntil(sandbox.child, 'Stop with Ctrl-C.');
    sandbox.child.kill('SIGINT');
    const { code, stdout } = await sandbox.done;
    expect(code).toBe(0);
    expect(stdout).toContain('Faults: over quota (200, nothing stored), 10% of accepted events lost after the 200; unknown tokens answered 200 and dropped');
  });
});

describe('migrate sandbox: management API options', () => {
  const tempDir = useTempDir();

  it('--no-explicit-members answers that API with 404, as PostHog Cloud; access control still answers', async () => {
    const dir = tempDir();
    const sandbox = startCli(['sandbox', '--port', '0', '--db', ':memory:', '--json', '--no-explicit-members', '--export-render-ms', '0', '--export-content-404-until-ready'], { cwd: dir });
    const info = JSON.parse((await outputUntil(sandbox.child)).split('\n')[0]!) as { url: string; personalKeys: Array<{ label: string; key: string }> };
    const key = info.personalKeys.find((k) => k.label === 'owner-all')!.key;
    const call = apiCaller(
      () => info.url,
      () => key,
    );
    const retired = await call('GET', '/api/environments/1/explicit_members/', 'owner-all');
    expect([retired.status, retired.json().detail]).toEqual([404, 'Endpoint not found.']);
    expect((await call('GET', '/api/projects/1/users_with_access/', 'owner-all')).status).toBe(200);
    await call.close();
    sandbox.child.kill('SIGTERM');
    expect((await sandbox.done).code).toBe(0);
  });

  it('refuses a negative --export-render-ms', async () => {
    const result = await runCli(['sandbox', '--port', '0', '--db', ':memory:', '--export-render-ms', '-5'], { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--export-render-ms');
  });
});

describe('npm run demo', () => {
  const tempDir = useTempDir();

  // The demo's steps as scripts/demo.mjs runs them, each command in this process (the sandbox,
  // which runs beside them, in its own): starting a Node for each of eleven commands was most of its time.
  it('stages the sample, imports it into test then production on a sandbox, and prints the status', async () => {
    const dir = tempDir();
    let out = '';
    const run = async (args: string[], env: Record<string, string> = {}): Promise<void> => {
      const result = await runCli(args, { cwd: dir, env });
      out += result.stdout + result.stderr;
      if (result.code !== 0) throw new Error(`migrate ${args[0]} exited with ${result.code}:\n${out}`);
    };
    const report = await runDemo({ dir, run, say: (line) => (out += `${line}\n`), keep: true, sandboxEnv: { NODE_OPTIONS: nodeOptionsWithFlags() } });
    expect(existsSync(report)).toBe(true);
    expect(out).toMatch(/test\s+test\s+http:\/\/127\.0\.0\.1:\d+\s+3,033\s+0\s+0\s+done/);
    expect(out).toContain('prod: delivered 3,000 of 3,000 events, 28 of 28 person updates, 5 of 5 group updates');
    expect(out).toMatch(/acme\s+\S+\s+\{"name":"Acme Corp"/);
    expect(out).toMatch(/prod\s+production\s+http:\/\/127\.0\.0\.1:\d+\s+3,033\s+0\s+0\s+done/);
    expect(out).toContain('Demo complete');
  });
});
