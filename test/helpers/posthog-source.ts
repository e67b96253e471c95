/**
 * A PostHog project as a source, for tests: a sandbox (A) with events sent through `/batch/`
 * as any client sends them, a config naming A's project 1 as `old` (its personal key with
 * query:read) and the sandbox B to import into as `test`, and the use case's input.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxPersonalKey } from '../../src/sandbox/api/management-seed.js';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import type { StageApiInput } from '../../src/stage-sources/stage-api.js';
import { ensureProjects } from './management-sandbox.js';
import { sandboxTokens } from './sandbox.js';

export interface SourceEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

/** Sends events to a sandbox's project 1 through `/batch/` with the historical flag. */
export async function sendToSandbox(sandbox: RunningSandbox, events: readonly SourceEvent[]): Promise<void> {
  ensureProjects(sandbox.store);
  const token = sandbox.store.db.prepare('SELECT api_token FROM projects WHERE id = 1').pluck().get() as string;
  for (let i = 0; i < events.length; i += 500) {
    const response = await fetch(`${sandbox.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: token, historical_migration: true, batch: events.slice(i, i + 500) }),
    });
    if (response.status !== 200) throw new Error(`sandbox refused the batch: ${response.status} ${await response.text()}`);
  }
}

/** A config with A's project 1 as `old` (read) and B's test project as `test` (written). */
export function writeMoveConfig(dir: string, source: RunningSandbox, destination?: RunningSandbox, keyLabel = 'owner-all'): string {
  ensureProjects(source.store);
  const projects: Record<string, unknown> = {
    old: { role: 'test', host: source.url, projectId: 1, personalApiKey: sandboxPersonalKey(source.store, keyLabel) },
  };
  if (destination !== undefined) projects.test = { role: 'test', host: destination.url, apiKey: sandboxTokens(destination).test };
  const file = join(dir, 'migrate.config.json');
  writeFileSync(file, JSON.stringify({ projects }, null, 2));
  return file;
}

/** `export-source --from posthog-api` of project `old` for whole days, with no rate limit and millisecond retries. */
export function posthogExportArgs(dir: string, config: string, start: string, end: string): string[] {
  const fast = ['--max-requests-per-hour', '0', '--retry-initial-ms', '1', '--retry-max-delay-ms', '5', '--quiet'];
  return ['export-source', '--from', 'posthog-api', '--project', 'old', '--start', start, '--end', end, '--staging', join(dir, 'migration.db'), '--config', config, ...fast];
}

export function posthogInput(dir: string, config: string, start: string, end: string, nowMs: number, extra: Partial<StageApiInput> = {}): StageApiInput {
  return {
    api: 'posthog-api',
    project: 'old',
    staging: join(dir, 'migration.db'),
    config,
    start,
    end,
    nowMs,
    readerOptions: {},
    rules: { nowMs },
    ingestion: { geoipFromIp: false, importSource: 'posthog' },
    recordedOptions: {},
    workers: 0,
    idleTimeoutMs: 10_000,
    retryPolicy: { initialDelayMs: 1, maxDelayMs: 5, maxTotalWaitMs: 60_000 },
    ...extra,
  };
}

/** The sandbox's persons of project 1, by distinct id: the person each id is on and its properties. */
export function personsOf(sandbox: RunningSandbox): Map<string, { person: number; properties: Record<string, unknown> }> {
  const rows = sandbox.store.db.prepare('SELECT d.distinct_id, p.id, p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.team_id = 1').all() as Array<{
    distinct_id: string;
    id: number;
    properties: string;
  }>;
  return new Map(rows.map((r) => [r.distinct_id, { person: r.id, properties: JSON.parse(r.properties) as Record<string, unknown> }]));
}
