/**
 * `migrate doctor` against real loopback servers: the sandbox (healthy, a key of the other
 * project, scopes missing, an older PostHog, events already there, billing limits, a host that
 * accepts any token), and small stand-ins for an HTML host, a login redirect and a skewed clock.
 * The use case on its returned values; the CLI for its wording, --json and exit code.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DoctorReport } from '../../src/doctor/check-result.js';
import { runDoctor } from '../../src/doctor/doctor.js';
import { silentReporter } from '../../src/reporter.js';
import { sandboxPersonalKey } from '../../src/sandbox/api/management-seed.js';
import type { RunningSandbox, SandboxOptions } from '../../src/sandbox/sandbox-server.js';
import { startResponder, type Answer, type LoopbackServer } from '../helpers/loopback-servers.js';
import { insertEvents } from '../helpers/management-sandbox.js';
import { runCli } from '../helpers/run-cli.js';
import { sandboxTokens, useSandbox } from '../helpers/sandbox.js';
import { stageSample } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const running = (): AbortSignal => new AbortController().signal;
const TYPO_KEY = 'phc_TypoTypoTypoTypoTypoTypoTypoTypoTypoTypo12';

function writeConfig(dir: string, projects: Record<string, Record<string, unknown>>): string {
  const file = join(dir, 'migrate.config.json');
  writeFileSync(file, JSON.stringify({ projects }, null, 2));
  return file;
}

function verdicts(report: DoctorReport): Record<string, string> {
  return Object.fromEntries(report.checks.map((c) => [c.check, c.verdict]));
}

function check(report: DoctorReport, name: string) {
  return report.checks.find((c) => c.check === name)!;
}

interface Setup {
  options?: SandboxOptions;
  /** test's project key: the test project's (default), the production project's, or a literal one. */
  key?: 'test' | 'prod' | string;
  /** Label of test's personal key (default owner-all); null for none. */
  personal?: string | null;
  staged?: boolean;
}

describe('migrate doctor on the sandbox', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  /** A sandbox with test (project 1) and prod (project 2), configured as `setup` says. */
  async function prepared(setup: Setup = {}) {
    const sandbox = await sandboxAt(setup.options);
    const tokens = sandboxTokens(sandbox);
    const dir = tempDir();
    const key = setup.key === undefined || setup.key === 'test' ? tokens.test : setup.key === 'prod' ? tokens.prod : setup.key;
    const personal = setup.personal === null ? {} : { projectId: 1, personalApiKey: sandboxPersonalKey(sandbox.store, setup.personal ?? 'owner-all') };
    const config = writeConfig(dir, {
      test: { role: 'test', host: sandbox.url, apiKey: key, ...personal },
      prod: { role: 'production', host: sandbox.url, apiKey: tokens.prod, projectId: 2 },
    });
    const staging = setup.staged === false ? join(dir, 'migration.db') : await stageSample(dir);
    const doctor = () => runDoctor({ project: 'test', config, staging }, silentReporter, running());
    return { sandbox, tokens, dir, config, staging, doctor };
  }

  it('a healthy project: every check ok, and nothing stored', async () => {
    const { sandbox, doctor } = await prepared();
    const report = await doctor();
    expect(report).toMatchObject({ project: 'test', host: sandbox.url, verdict: 'ok', problems: 0, warnings: 0 });
    expect(report.checks.map((c) => c.check)).toEqual(['host', 'project-key', 'separate-projects', 'scopes', 'disk', 'clock', 'node', 'existing-data', 'ingestion-rules', 'billing']);
    expect(check(report, 'host').message).toContain('it answered an empty batch with HTTP 400, application/json, body: {"status":400,"code":"empty_batch","error":"request holds no event"}');
    expect(check(report, 'project-key').message).toBe('the project key is the key of project "Test project" (id 1), as its API says');
    expect(check(report, 'existing-data').message).toContain('the project holds no events on the staged days; the migration adds 3,000 events over 42 days');
    expect(check(report, 'billing').message).toMatch(/^3,000 events staged; the organization has no billing limit on events/);
    expect(sandbox.capture.stats.answers).toEqual({ 400: 1 });
    expect(sandbox.store.db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 0 });
  });

  it('before anything is staged: the checks that need no staging file', async () => {
    const { doctor } = await prepared({ staged: false });
    const report = await doctor();
    expect(report.verdict).toBe('ok');
    expect(check(report, 'existing-data').message).toMatch(/^no events staged yet/);
    expect(check(report, 'disk').message).toMatch(/nothing staged is waiting to be imported$/);
  });

  it('the key of the other project: the project it belongs to is named', async () => {
    const { tokens, doctor } = await prepared({ key: 'prod' });
    const report = await doctor();
    expect(verdicts(report)).toMatchObject({ 'project-key': 'problem', 'separate-projects': 'problem' });
    expect(check(report, 'project-key').message).toContain('not the key of project "Test project" (id 1), the configured projectId: it is the key of project "Production project" (id 2)');
    expect(check(report, 'separate-projects').message).toBe(
      'projects "test" (test) and "prod" (production) of the config have the same project API key: they are one PostHog project, so a rehearsal would land in production',
    );
    expect(JSON.stringify(report)).not.toContain(tokens.prod);
  });

  it('a typo, without a personal key: the flags endpoint says PostHog does not know the key', async () => {
    const { doctor } = await prepared({ key: TYPO_KEY, personal: null });
    const report = await doctor();
    expect(verdicts(report)).toMatchObject({ host: 'ok', 'project-key': 'problem', scopes: 'warning', billing: 'warning' });
    expect(check(report, 'project-key').message).toContain('its flags endpoint answered HTTP 401, text/plain; charset=utf-8, body: The provided API key is invalid or has expired.');
  });

  it('a host that accepts any token (--unknown-tokens accept-and-drop): a typo is still caught, nothing stored', async () => {
    const { sandbox, doctor } = await prepared({ options: { capture: { faults: { unknownTokens: 'accept-and-drop' } } }, key: TYPO_KEY, personal: null });
    const report = await doctor();
    expect(report.verdict).toBe('problem');
    expect(check(report, 'host').verdict).toBe('ok');
    expect(check(report, 'project-key').message).toMatch(/^PostHog does not know the project key \(capture may still answer 200 to it and drop every event\)/);
    expect(sandbox.capture.stats.dropped.unknownToken).toBe(0);
  });

  it('missing scopes: a warning naming what will not work; those checks say they did not run', async () => {
    const { doctor } = await prepared({ personal: 'owner-no-query' });
    const report = await doctor();
    expect(verdicts(report)).toMatchObject({ 'project-key': 'ok', scopes: 'warning', 'existing-data': 'ok', billing: 'warning' });
    expect(check(report, 'scopes').message).toBe(
      'the personal key lacks query:read (`migrate verify` and the existing-data check), billing:read (the billing check): those will not work; the migration itself does not need them',
    );
    expect(check(report, 'existing-data').message).toMatch(/was not checked: the personal key lacks query:read$/);
    expect(check(report, 'billing').message).toMatch(/was not read: the personal key lacks billing:read$/);
  });

  it('an older PostHog that does not tell a key its scopes: each read scope is tried', async () => {
    const { doctor } = await prepared({ options: { api: { currentKeyNeedsScope: true } }, personal: 'admin-read-only' });
    const report = await doctor();
    const scopes = check(report, 'scopes');
    expect(scopes.verdict).toBe('warning');
    expect(scopes.message).toMatch(/^the personal key lacks query:read .*organization_member:read .*access_control:read .*billing:read/);
    expect(scopes.message).toContain('(this PostHog does not tell a key its scopes, so each was tried with a read; access_control:write and export:write cannot be tried without changing something)');
    expect(scopes.details).toMatchObject({ granted: expect.arrayContaining(['project:read', 'group:read', 'export:read']) });
  });

  it('a project that already holds events on the staged days: a warning, with the days', async () => {
    const { sandbox, doctor } = await prepared();
    insertEvents(sandbox.store, 1, [
      { event: 'live', timestamp: '2025-09-03T10:00:00.000Z' },
      { event: 'live', timestamp: '2025-09-03T11:00:00.000Z' },
      { event: 'live', timestamp: '2024-01-01T11:00:00.000Z' },
    ]);
    const report = await doctor();
    expect(check(report, 'existing-data')).toMatchObject({
      verdict: 'warning',
      message: expect.stringMatching(/^the project already holds 2 events on 1 of the 42 staged days \(2025-09-03: 2\): a re-import, or a live SDK/),
    });
  });

  it.each<[string, SandboxOptions, 'warning' | 'problem', RegExp]>([
    [
      'over quota (--over-quota)',
      { capture: { faults: { overQuota: true } } },
      'problem',
      /the organization has used 0 of its limit of 0 events this billing period.*: PostHog drops events over a billing limit while still answering 200, so the migration would look delivered and store nothing/,
    ],
    ['a limit the migration would pass', { api: { billingEventsLimit: 1000 } }, 'warning', /used 0 of its limit of 1,000 events .*the migration may pass the limit/],
  ])('billing: %s', async (_name, options, verdict, message) => {
    const { doctor } = await prepared({ options });
    const report = await doctor();
    expect(check(report, 'billing')).toMatchObject({ verdict, message: expect.stringMatching(message) });
  });

  it('stops at once when interrupted, having sent nothing', async () => {
    const { sandbox, config, staging } = await prepared({ staged: false });
    const interrupt = new AbortController();
    interrupt.abort('SIGINT');
    await expect(runDoctor({ project: 'test', config, staging }, silentReporter, interrupt.signal)).rejects.toMatchObject({
      exitCode: 130,
      message: 'interrupted by SIGINT during the preflight; nothing was sent',
    });
    expect(sandbox.capture.stats.requests).toBe(0);
  });

  it("billing needs billing access: a member's key reads nothing there", async () => {
    const { doctor } = await prepared({ personal: 'admin-all' });
    const report = await doctor();
    expect(check(report, 'billing')).toMatchObject({
      verdict: 'warning',
      message: expect.stringContaining('the billing API did not answer (403: You do not have billing access in this organization. Ask its owner.)'),
    });
  });
});

describe('migrate doctor against hosts that are not PostHog', () => {
  const tempDir = useTempDir();
  const servers: LoopbackServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  async function hostAnswering(answer: (url: string) => Answer) {
    const server = await startResponder((request) => answer(request.url));
    servers.push(server);
    const dir = tempDir();
    const config = writeConfig(dir, { test: { role: 'test', host: server.url, apiKey: 'phc_someProjectKeyOfTheRightShape00000000000' } });
    return { server, dir, config, doctor: () => runDoctor({ project: 'test', config, staging: join(dir, 'migration.db') }, silentReporter, running()) };
  }

  const HTML = '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>PostHog</title></head><body>' + 'x'.repeat(300) + '</body></html>';

  it.each<[string, Answer, RegExp]>([
    [
      "the web app's address (an HTML page)",
      { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: HTML },
      /an empty batch got HTTP 200, text\/html; charset=utf-8, body: <!DOCTYPE html>.*, an HTML page/,
    ],
    [
      'a redirect to a login',
      { status: 302, headers: { location: '/login?next=/batch/', 'content-type': 'text/html' } },
      /HTTP 302, text\/html, location: \/login\?next=\/batch\/, empty body, a redirect/,
    ],
    ['a server that accepts anything', { status: 200, headers: { 'content-type': 'application/json' }, body: '{"status":"Ok"}' }, /a success for a batch with no event/],
  ])('%s: a problem at the host; the key goes nowhere else', async (_name, answer, message) => {
    const { server, doctor } = await hostAnswering(() => answer);
    const report = await doctor();
    expect(check(report, 'host')).toMatchObject({ verdict: 'problem', message: expect.stringMatching(message) });
    expect(check(report, 'project-key')).toMatchObject({ verdict: 'warning', message: 'the project key was not checked: the host is not a PostHog ingestion endpoint' });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /batch/']);
    expect(JSON.parse(server.requests[0]!.body)).toMatchObject({ batch: [] });
  });

  it('shows at most the first 200 characters of the answer', async () => {
    const { doctor } = await hostAnswering(() => ({ status: 200, headers: { 'content-type': 'text/html' }, body: HTML }));
    const message = check(await doctor(), 'host').message;
    expect(message).toContain(`body: ${HTML.slice(0, 200)},`);
    expect(message).not.toContain(HTML.slice(0, 201));
  });

  it('a server clock ten minutes off: a warning, the staging rules compare times with now', async () => {
    const skewed = new Date(Date.now() + 10 * 60_000).toUTCString();
    const { doctor } = await hostAnswering((url) =>
      url.startsWith('/batch/')
        ? { status: 400, headers: { 'content-type': 'application/json', date: skewed }, body: '{"status":400,"code":"empty_batch","error":"request holds no event"}' }
        : { status: 200, headers: { 'content-type': 'application/json', date: skewed }, body: '{"errorsWhileComputingFlags":false,"flags":{},"requestId":"r"}' },
    );
    const report = await doctor();
    expect(verdicts(report)).toMatchObject({ host: 'ok', 'project-key': 'ok', clock: 'warning' });
    expect(check(report, 'clock').message).toMatch(/^this machine's clock is (9|10) minutes behind the server's/);
  });
});

describe('migrate doctor, the command', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  it('prints one line per check and exits 0; --json has the same content', async () => {
    const sandbox: RunningSandbox = await sandboxAt();
    const dir = tempDir();
    const tokens = sandboxTokens(sandbox);
    const config = writeConfig(dir, { test: { role: 'test', host: sandbox.url, apiKey: tokens.test }, prod: { role: 'production', host: sandbox.url, apiKey: tokens.prod } });
    const text = await runCli(['doctor', '--project', 'test', '--config', config], { cwd: dir });
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toBe(`Doctor: project test at ${sandbox.url}`);
    expect(lines.filter((l) => /^  (ok|warning|problem) /.test(l)).map((l) => l.trim().split(/\s+/)[1])).toEqual([
      'host',
      'project-key',
      'separate-projects',
      'scopes',
      'disk',
      'clock',
      'node',
      'existing-data',
      'ingestion-rules',
      'billing',
    ]);
    expect(text.stdout).toContain('  warning  scopes             no personal API key is configured');
    expect(lines.at(-1)).toBe('2 warnings: import will send, showing the warnings.');
    const json = await runCli(['doctor', '--project', 'test', '--config', config, '--json'], { cwd: dir });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as DoctorReport;
    expect(report).toMatchObject({ project: 'test', host: sandbox.url, verdict: 'warning', problems: 0, warnings: 2 });
    expect(report.checks.map((c) => c.check)).toHaveLength(10);
  });

  it('exits 10 when a check finds a problem, and never shows the key', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const config = writeConfig(dir, { test: { role: 'test', host: sandbox.url, apiKey: TYPO_KEY } });
    const result = await runCli(['doctor', '--project', 'test', '--config', config], { cwd: dir });
    expect(result.code).toBe(10);
    expect(result.stdout).toContain('  problem  project-key        PostHog does not know the project key');
    expect(result.stdout).toContain('1 problem, 2 warnings: import will refuse to send until each problem is fixed.');
    expect(result.stderr).toContain('error: doctor found 1 problem with project "test"; see above');
    expect(result.stdout + result.stderr).not.toContain(TYPO_KEY);
  });
});
