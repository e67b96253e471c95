/**
 * Staging files made by an older migrate, through the built CLI: the reading commands read them
 * as they are (through an upgraded copy, the file untouched), and every import or resume that
 * still has rows staged before the GeoIP rule to send says so, not only the first preflight.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase, schemaVersion } from '../../src/sqlite/database.js';
import { MIGRATIONS, STAGING_APPLICATION_ID } from '../../src/staging/staging-schema.js';
import { runCli } from '../helpers/run-cli.js';
import { storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { FAST, readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const EVENTS = 3;
const V3 = 3;

/** A staging file as migrate wrote it at schema v3: one read of a CSV with no GeoIP option recorded, its rows without $geoip_disable. */
function writeV3(file: string): void {
  const db = openDatabase(file);
  migrate(db, MIGRATIONS.slice(0, V3));
  db.pragma(`application_id = ${STAGING_APPLICATION_ID}`);
  db.prepare("INSERT INTO meta (key, value) VALUES ('created_at', '2025-01-01T00:00:00.000Z')").run();
  db.prepare("INSERT INTO sources (path, format) VALUES ('/data/events.csv', 'csv')").run();
  db.prepare(
    "INSERT INTO source_reads (source_id, command, status, size_bytes, rows_read, rows_staged, started_at, finished_at) VALUES (1, 'export-source', 'done', 300, ?, ?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:01.000Z')",
  ).run(EVENTS, EVENTS);
  const insert = db.prepare('INSERT INTO events (uuid, kind, event, distinct_id, timestamp_ms, properties, read_id, line) VALUES (?, 0, ?, ?, ?, ?, 1, ?)');
  for (let i = 0; i < EVENTS; i++) {
    insert.run(Buffer.from(`0190000000007000800000000000000${i + 1}`, 'hex'), 'signed_up', `u${i}`, Date.UTC(2024, 5, 1 + i, 10), JSON.stringify({ plan: 'free' }), i + 2);
  }
  db.prepare("INSERT INTO event_names (kind, name, count) VALUES (0, 'signed_up', ?)").run(EVENTS);
  db.close();
}

describe('a staging file made by an older migrate', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  it('status and rejects read a v3 file without upgrading it', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    const staging = join(dir, 'old.db');
    writeV3(staging);
    const status = await runCli(['status', '--staging', staging], { cwd: dir });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).not.toMatch(/SqliteError|    at /);
    expect(status.stdout).toContain('Events: 3');
    expect(status.stdout + status.stderr).toContain('was written by an older version of migrate (schema 3): read through an upgraded copy');
    const json = JSON.parse((await runCli(['status', '--json', '--staging', staging], { cwd: dir })).stdout);
    expect(json.events.count).toBe(EVENTS);
    const rejects = await runCli(['rejects', '--staging', staging], { cwd: dir });
    expect(rejects.code, rejects.stderr).toBe(0);
    expect(rejects.stderr).not.toMatch(/SqliteError|    at /);
    expect(readStaging(staging, (db) => schemaVersion(db))).toBe(V3);
  });

  it('every import that still sends rows staged before the GeoIP rule warns, not only the first preflight', { timeout: 240_000 }, async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const staging = join(dir, 'old.db');
    writeV3(staging);
    const config = writeSandboxConfig(dir, sandbox);
    const cli = (args: string[]) => runCli([...args, '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    const first = await cli(['import', '--project', 'test', '--sample', '1']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('set no $geoip_disable');

    const rest = await cli(['import', '--project', 'test']);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stderr).toContain('test: 1 read staged by an older migrate (/data/events.csv) set no $geoip_disable: those of their 3 rows still to be sent will be located by PostHog');
    expect(storedEvents(sandbox, 1)).toHaveLength(EVENTS);

    const done = await cli(['import', '--project', 'test']);
    expect(done.stderr).not.toContain('$geoip_disable'); // nothing left to send
  });
});
