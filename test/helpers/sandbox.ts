/**
 * A real sandbox server on 127.0.0.1 in the test process, closed after each test, with helpers
 * to read what it stored and to write a config pointing at it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { applyGeoip } from '../../src/sandbox/capture/sandbox-geoip.js';
import { listSandboxProjects } from '../../src/sandbox/sandbox-projects.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/sandbox-server.js';
import { shownTime } from '../../src/sandbox/stored-time.js';

export interface StoredEvent {
  team_id: number;
  uuid: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  properties: string;
  historical_migration: number;
  endpoint: string;
}

export function useSandbox(): (options?: SandboxOptions) => Promise<RunningSandbox> {
  const running: RunningSandbox[] = [];
  afterEach(async () => {
    for (const sandbox of running.splice(0)) await sandbox.close();
  });
  return async (options = {}) => {
    const sandbox = await startSandbox(options);
    running.push(sandbox);
    return sandbox;
  };
}

export function sandboxTokens(sandbox: RunningSandbox): { test: string; prod: string } {
  const projects = listSandboxProjects(sandbox.store);
  return { test: projects.find((p) => p.role === 'test')!.apiToken, prod: projects.find((p) => p.role === 'production')!.apiToken };
}

export function storedEvents(sandbox: RunningSandbox, teamId: number): StoredEvent[] {
  const rows = sandbox.store.db
    .prepare('SELECT team_id, uuid, event, distinct_id, timestamp, properties, historical_migration, endpoint FROM events WHERE team_id = ? ORDER BY id')
    .all(teamId) as StoredEvent[];
  // Times as shown: three fraction digits, six when there are microseconds.
  return rows.map((r) => ({ ...r, timestamp: shownTime(r.timestamp) }));
}

/** Writes migrate.config.json in `dir` with projects test and prod on this sandbox. */
export function writeSandboxConfig(dir: string, sandbox: RunningSandbox, override: Record<string, unknown> = {}): string {
  const tokens = sandboxTokens(sandbox);
  const config = {
    projects: {
      test: { role: 'test', host: sandbox.url, apiKey: tokens.test },
      prod: { role: 'production', host: sandbox.url, apiKey: tokens.prod },
      ...override,
    },
  };
  const file = join(dir, 'migrate.config.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

type Obj = Record<string, unknown>;

/**
 * The properties the sandbox stores for an event sent with `properties` from this machine.
 * PostHog's ingestion adds the sender's address as `$ip` when the event has none and, unless
 * `$geoip_disable` is set, its location (`$geoip_*`, and the same in `$set` / `$set_once` for
 * the person). Staged rows without their own `$ip` carry `$geoip_disable`: they get the `$ip` only.
 */
export function asIngested(properties: Obj, senderIp = '127.0.0.1'): Obj {
  const copy = structuredClone(properties);
  applyGeoip(copy, senderIp);
  return copy;
}

/** Person properties without the location PostHog's GeoIP step puts on persons. */
export function withoutGeoip(properties: Obj): Obj {
  return Object.fromEntries(Object.entries(properties).filter(([key]) => !key.startsWith('$geoip_') && !key.startsWith('$initial_geoip_')));
}
