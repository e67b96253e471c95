/**
 * `migrate verify` counts landed events by the uuids of the events this staging file delivered,
 * never by `$import_run`: a withdrawn old version carrying the same run id cannot stand in for
 * its corrected row, and rows sent before `$import_run` existed are still found. Through the
 * built CLI against the sandbox.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sqlite/database.js';
import { runCli } from '../helpers/run-cli.js';
import { storedEvents, useSandbox } from '../helpers/sandbox.js';
import { FAST, readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { writeVerifyConfig } from '../helpers/verify-config.js';
import { registerPropertyFunctions } from '../../src/staging/property-blocks.js';
import { STAGED_PROPERTIES_TEXT } from '../helpers/staged-properties.js';

const HEADER = 'event,distinct_id,timestamp,plan';

function writeCsv(dir: string, name: string, rows: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, [HEADER, ...rows, ''].join('\n'));
  return file;
}

describe('verify counts delivered uuids', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  async function setup() {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const config = writeVerifyConfig(dir, sandbox);
    const staging = join(dir, 'migration.db');
    const cli = (args: string[]) => runCli([...args, '--staging', staging, '--config', config], { cwd: dir });
    const stage = (file: string, extra: string[] = []) => runCli(['export-source', '--from', 'csv', file, '--staging', staging, '--quiet', ...extra], { cwd: dir });
    return { sandbox, dir, staging, cli, stage };
  }

  it('a corrected row re-staged with --replace-changed and lost in PostHog: the withdrawn old version does not count; --resend-missing re-sends it', { timeout: 240_000 }, async () => {
    const { sandbox, dir, cli, stage } = await setup();
    const rows = ['signed_up,u1,2025-09-01T10:00:00Z,free', 'signed_up,u2,2025-09-01T11:00:00Z,free', 'signed_up,u3,2025-09-01T12:00:00Z,free'];
    const file = writeCsv(dir, 'users.csv', rows);
    expect((await stage(file)).code).toBe(0);
    expect((await cli(['import', '--project', 'test', ...FAST])).code).toBe(0);
    writeCsv(dir, 'users.csv', [rows[0]!, rows[1]!, 'signed_up,u3,2025-09-01T12:00:00Z,pro']);
    const restaged = await stage(file, ['--replace-changed']);
    expect(restaged.code, restaged.stderr).toBe(0);
    expect((await cli(['import', '--project', 'test', ...FAST])).code).toBe(0);
    expect(storedEvents(sandbox, 1)).toHaveLength(4); // the old version stays in PostHog
    // The corrected event is lost after PostHog accepted it.
    const corrected = sandbox.store.db.prepare("DELETE FROM events WHERE team_id = 1 AND json_extract(properties, '$.plan') = 'pro' RETURNING uuid").all() as Array<{ uuid: string }>;
    expect(corrected).toHaveLength(1);

    const short = await cli(['verify', '--project', 'test']);
    expect(short.code, short.stdout + short.stderr).toBe(9);
    expect(short.stdout).toContain('1 day short by 1 event: 2 of 3 delivered events landed');

    const resent = await cli(['verify', '--project', 'test', '--resend-missing', '--quiet']);
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stdout).toContain('Re-queued 1 event on 1 day and re-sent them with the same uuids and content');
    expect(storedEvents(sandbox, 1).map((e) => e.uuid)).toContain(corrected[0]!.uuid);
    const whole = await cli(['verify', '--project', 'test']);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout).toContain('1 day complete: 3 of 3 delivered events landed');
  });

  it('an event that lands after a first verify is seen by the next one: no cached answer, nothing re-sent twice', { timeout: 240_000 }, async () => {
    const { sandbox, dir, cli, stage } = await setup();
    const rows = ['signed_up,u1,2025-09-01T10:00:00Z,free', 'signed_up,u2,2025-09-01T11:00:00Z,free', 'signed_up,u3,2025-09-01T12:00:00Z,free'];
    expect((await stage(writeCsv(dir, 'users.csv', rows))).code).toBe(0);
    expect((await cli(['import', '--project', 'test', ...FAST])).code).toBe(0);
    // One event not landed yet when verify first asks.
    const db = sandbox.store.db;
    const late = db.prepare("SELECT * FROM events WHERE team_id = 1 AND distinct_id = 'u3'").get() as Record<string, unknown>;
    db.prepare('DELETE FROM events WHERE id = ?').run(late.id);
    const short = await cli(['verify', '--project', 'test']);
    expect(short.code, short.stdout + short.stderr).toBe(9);
    const columns = Object.keys(late);
    db.prepare(`INSERT INTO events (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`).run(late);

    const again = await cli(['verify', '--project', 'test', '--resend-missing', '--quiet']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).not.toContain('Re-queued');
    expect(storedEvents(sandbox, 1)).toHaveLength(3);
  });

  it('a file staged before $import_run existed and extended today: every delivered uuid PostHog holds is landed', { timeout: 240_000 }, async () => {
    const { dir, staging, cli, stage } = await setup();
    const early = Array.from({ length: 6 }, (_, i) => `viewed,u${i},2025-09-0${1 + (i % 3)}T10:00:0${i}Z,free`);
    expect((await stage(writeCsv(dir, 'early.csv', early))).code).toBe(0);
    // As an older version staged it: no $import_run on its rows, none in the file.
    const db = openDatabase(staging);
    registerPropertyFunctions(db);
    db.prepare(`UPDATE events SET properties = json_remove(${STAGED_PROPERTIES_TEXT}, '$.$import_run')`).run();
    db.prepare("DELETE FROM meta WHERE key = 'import_run'").run();
    db.close();
    expect((await cli(['import', '--project', 'test', ...FAST])).code).toBe(0);
    const later = Array.from({ length: 4 }, (_, i) => `viewed,v${i},2025-09-0${1 + (i % 3)}T11:00:0${i}Z,free`);
    expect((await stage(writeCsv(dir, 'later.csv', later))).code).toBe(0);
    expect(readStaging(staging, (d) => d.prepare("SELECT value FROM meta WHERE key = 'import_run'").pluck().get())).toBeTruthy();
    expect((await cli(['import', '--project', 'test', ...FAST])).code).toBe(0);

    const result = await cli(['verify', '--project', 'test']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('all 3 days complete: 10 of 10 delivered events landed');
  });
});
