/** `migrate verify` through the built CLI: the wording, exit 9 when events are missing, --json, --html, the re-send, the scope error. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { FAST, stageSample } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { writeVerifyConfig } from '../helpers/verify-config.js';

describe('migrate verify', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  it('exits 9 naming the short days first, writes the report, re-sends the missing events, then exits 0', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const config = writeVerifyConfig(dir, sandbox, 'owner-all');
    const staging = await stageSample(dir);
    const cli = (args: string[]) => runCli([...args, '--staging', staging, '--config', config], { cwd: dir });
    expect((await cli(['import', '--project', 'test', ...FAST])).code).toBe(0);
    sandbox.store.db
      .prepare("DELETE FROM events WHERE team_id = 1 AND id IN (SELECT id FROM events WHERE team_id = 1 AND timestamp LIKE '2025-09-0%' ORDER BY timestamp, uuid LIMIT 3 OFFSET 10)")
      .run();

    const short = await cli(['verify', '--project', 'test', '--html', 'report.html']);
    expect(short.code, short.stderr).toBe(9);
    const lines = short.stdout.split('\n');
    expect(lines[2]).toMatch(/^ {2}day +staged +delivered +dead letters +landed +missing$/);
    expect(lines[3]).toMatch(/^ {2}2025-09-01 +65 +65 +0 +62 +3$/);
    expect(short.stdout).toContain('1 day short by 3 events: 2,997 of 3,000 delivered events landed');
    expect(short.stdout).toContain(`Report: ${join(dir, 'report.html')}`);
    expect(short.stderr).toContain('error: 1 day short by 3 events: PostHog accepted them and does not hold them');
    expect(short.stderr).toContain('migrate verify --project test --resend-missing');
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('data-verdict="short"');

    const json = await cli(['verify', '--project', 'test', '--json']);
    expect(json.code).toBe(9);
    const parsed = JSON.parse(json.stdout);
    expect(parsed).toMatchObject({ project: 'test', method: 'uuids', summary: { complete: false, shortDays: 1, missing: 3 }, report: null });
    expect(parsed.rows[0]).toEqual({ day: '2025-09-01', staged: 65, delivered: 65, deadLetters: 0, landed: 62, missing: 3 });

    const resent = await cli(['verify', '--project', 'test', '--resend-missing', '--quiet']);
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stdout).toContain('Re-queued 3 events on 1 day and re-sent them with the same uuids and content (import run 2): 3 accepted.');

    const whole = await cli(['verify', '--project', 'test', '--since', '2025-09-01', '--until', '2025-09-02']);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout).toContain('all 2 days complete: 144 of 144 delivered events landed');
  });

  it('exits 4 naming the missing query:read scope', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const staging = await stageSample(dir);
    expect((await runCli(['import', '--project', 'test', '--staging', staging, '--config', writeVerifyConfig(dir, sandbox, 'owner-all'), ...FAST], { cwd: dir })).code).toBe(0);
    const result = await runCli(['verify', '--project', 'test', '--staging', staging, '--config', writeVerifyConfig(dir, sandbox, 'owner-no-query'), '--html', 'r.html'], { cwd: dir });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("error: the personal API key lacks the scope 'query:read' (403)");
    expect(result.stderr).not.toMatch(/phx_/);
    expect(existsSync(join(dir, 'r.html'))).toBe(false);
  });
});
