/**
 * A staging file written by the build before property blocks (schema 14: properties as JSONB),
 * stopped mid-import (Ctrl-C after a few chunks: 71 of its 248 events delivered), upgraded in
 * place by this build: the rest is delivered once, nothing delivered twice, every value as staged.
 * The fixture was made with that build: a Mixpanel fixture staged, then `import --chunk-events 25`
 * interrupted by SIGINT at the sandbox's fifth request.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { uuidText } from '../../src/events/stable-uuid.js';
import { openDatabase, schemaVersion } from '../../src/sqlite/database.js';
import { MIGRATIONS } from '../../src/staging/staging-schema.js';
import { FIXTURES, runCli } from '../helpers/run-cli.js';
import { storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { STAGED_PROPERTIES_TEXT } from '../helpers/staged-properties.js';
import { FAST, readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const FIXTURE = join(FIXTURES, 'staging', 'v14-mixpanel-mid-import.db.gz');

interface StagedRow {
  uuid: Buffer;
  kind: number;
  p: string;
  delivered: number;
}

function stagedRows(staging: string, properties: string): StagedRow[] {
  return readStaging(
    staging,
    (db) => db.prepare(`SELECT uuid, kind, ${properties} AS p, EXISTS (SELECT 1 FROM deliveries d WHERE d.seq = e.seq) AS delivered FROM events e ORDER BY seq`).all() as StagedRow[],
  );
}

describe('a staging file of the layout before property blocks', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  it('upgrades in place mid-import: the rest delivered once, nothing twice, every value as staged', { timeout: 240_000 }, async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const staging = join(dir, 'old.db');
    writeFileSync(staging, gunzipSync(readFileSync(FIXTURE)));
    const config = writeSandboxConfig(dir, sandbox);
    const before = stagedRows(staging, 'json(properties)');
    expect(readStaging(staging, schemaVersion)).toBe(14);
    const delivered = before.filter((r) => r.delivered === 1);
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.length).toBeLessThan(before.length);
    // The sandbox that took the first chunks is gone: this one stands in for the same project.
    const db = openDatabase(staging);
    db.prepare('UPDATE projects SET host = ?').run(sandbox.url);
    db.prepare('UPDATE import_runs SET config_path = ?').run(config);
    db.close();

    const resumed = await runCli(['resume', '--staging', staging, ...FAST], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readStaging(staging, schemaVersion)).toBe(MIGRATIONS.length);

    // Every event the file had pending arrived once; none delivered before came again.
    const stored = storedEvents(sandbox, 1);
    const pending = before.filter((r) => r.delivered === 0);
    expect(stored.map((e) => e.uuid).sort()).toEqual(pending.map((r) => uuidText(r.uuid)).sort());
    const byUuid = new Map(stored.map((e) => [e.uuid, e]));
    for (const row of pending) {
      const got = JSON.parse(byUuid.get(uuidText(row.uuid))!.properties) as Record<string, unknown>;
      const staged = JSON.parse(row.p) as Record<string, unknown>;
      for (const [key, value] of Object.entries(staged)) expect(got[key], key).toEqual(value);
    }
    // The rows read after the upgrade are the rows staged before it, value for value.
    const after = stagedRows(staging, STAGED_PROPERTIES_TEXT);
    expect(after.map((r) => [uuidText(r.uuid), r.p])).toEqual(before.map((r) => [uuidText(r.uuid), r.p]));
    expect(after.every((r) => r.delivered === 1)).toBe(true);
  });
});

/**
 * A staging file written by the build before the uuid mapping (schema 16: events.uuid UNIQUE,
 * properties in blocks), a sample import of 70 of its 248 events delivered in chunks of 25,
 * upgraded in place by this build: its mapping is filled from the old index, the rest is
 * delivered once, and the same source staged again finds every row already staged. The fixture
 * was made with that build: the Mixpanel fixture staged, then `import --sample 70 --chunk-events 25`.
 */
const FIXTURE_V16 = join(FIXTURES, 'staging', 'v16-mixpanel-mid-import.db.gz');

describe('a staging file of the layout before the uuid mapping', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  it('upgrades in place mid-import: the rest delivered once, nothing twice, and its rows found again', { timeout: 240_000 }, async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const staging = join(dir, 'old.db');
    writeFileSync(staging, gunzipSync(readFileSync(FIXTURE_V16)));
    const config = writeSandboxConfig(dir, sandbox);
    const before = stagedRows(staging, STAGED_PROPERTIES_TEXT);
    expect(readStaging(staging, schemaVersion)).toBe(16);
    const delivered = before.filter((r) => r.delivered === 1);
    expect([delivered.length, before.length]).toEqual([70, 248]);
    const db = openDatabase(staging);
    db.prepare('UPDATE projects SET host = ?').run(sandbox.url);
    db.close();

    const imported = await runCli(['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(imported.code, imported.stderr).toBe(0);
    expect(readStaging(staging, schemaVersion)).toBe(MIGRATIONS.length);
    expect(readStaging(staging, (d) => d.prepare('SELECT count(*) FROM uuid_keys').pluck().get())).toBe(248);

    const stored = storedEvents(sandbox, 1);
    const pending = before.filter((r) => r.delivered === 0);
    expect(stored.map((e) => e.uuid).sort()).toEqual(pending.map((r) => uuidText(r.uuid)).sort());
    const after = stagedRows(staging, STAGED_PROPERTIES_TEXT);
    expect(after.map((r) => [uuidText(r.uuid), r.p])).toEqual(before.map((r) => [uuidText(r.uuid), r.p]));
    expect(after.every((r) => r.delivered === 1)).toBe(true);

    // The same export from another path: every row (the repeated one too) found through the mapping, nothing new.
    const again = await runCli(['export-source', '--from', 'mixpanel', join(FIXTURES, 'mixpanel', 'export-2025-09-01_2025-09-20.jsonl'), '--staging', staging, '--json'], {
      cwd: dir,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).totals).toMatchObject({ staged: 0, alreadyStaged: 249, duplicates: 0 });
    const resent = await runCli(['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(resent.code, resent.stderr).toBe(0);
    expect(storedEvents(sandbox, 1)).toHaveLength(pending.length);
  });
});
