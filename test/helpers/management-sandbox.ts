/**
 * A sandbox for management tests: started in-process on 127.0.0.1, with its seeded people and
 * keys, the two projects (inserted here when the store has none yet), a config file pointing
 * at it, and small inserts for groups, group types and events.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxPersonalKey } from '../../src/sandbox/api/management-seed.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/sandbox-server.js';
import type { SandboxStore } from '../../src/sandbox/sandbox-store.js';
import { SANDBOX_ORGANIZATION_ID } from '../../src/sandbox/sandbox-seed-ids.js';
import { runCli, type CliResult } from './run-cli.js';
import { storedTime } from '../../src/sandbox/stored-time.js';

/** Inserts projects 1 (test) and 2 (production) unless the sandbox seeded them already. */
export function ensureProjects(store: SandboxStore): void {
  const insert = store.db.prepare(`INSERT OR IGNORE INTO projects (id, name, api_token, organization_id, timezone, created_at) VALUES (?, ?, ?, ?, 'UTC', '2025-01-01T00:00:00Z')`);
  insert.run(1, 'Sandbox test project', 'phc_sandboxTestProjectToken0001', SANDBOX_ORGANIZATION_ID);
  insert.run(2, 'Sandbox production project', 'phc_sandboxProdProjectToken0002', SANDBOX_ORGANIZATION_ID);
}

export interface ProjectEntry {
  /** Label of a seeded key, or a literal key value. */
  key?: string;
  keyEnv?: string;
  projectId?: number;
  host?: string;
  apiHost?: string;
  /** A project (ingestion) key, to prove management commands never send it. */
  apiKey?: string;
}

export interface ManagementSandbox {
  sandbox: RunningSandbox;
  store: SandboxStore;
  key(label: string): string;
  /** Writes a config file with one project per entry; returns its path. */
  writeConfig(dir: string, projects: Record<string, ProjectEntry>): string;
  /** Runs the CLI with `--config` added. */
  cli(config: string, args: string[], env?: Record<string, string>): Promise<CliResult>;
}

export async function startManagementSandbox(options: SandboxOptions = {}): Promise<ManagementSandbox> {
  const sandbox = await startSandbox({ port: 0, ...options });
  ensureProjects(sandbox.store);
  const key = (label: string) => (label.startsWith('ph') ? label : sandboxPersonalKey(sandbox.store, label));
  return {
    sandbox,
    store: sandbox.store,
    key,
    writeConfig(dir, projects) {
      const entries = Object.entries(projects).map(([name, p]) => {
        const project: Record<string, unknown> = { role: 'test', host: p.host ?? sandbox.url, projectId: p.projectId ?? 1 };
        if (p.apiHost !== undefined) project.apiHost = p.apiHost;
        if (p.apiKey !== undefined) project.apiKey = p.apiKey;
        if (p.keyEnv !== undefined) project.personalApiKeyEnv = p.keyEnv;
        else project.personalApiKey = key(p.key ?? 'owner-all');
        return [name, project];
      });
      const file = join(dir, 'migrate.config.json');
      writeFileSync(file, JSON.stringify({ projects: Object.fromEntries(entries) }, null, 2));
      return file;
    },
    cli: (config, args, env) => runCli([...args, '--config', config], { cwd: join(config, '..'), env }),
  };
}

export function insertGroupType(store: SandboxStore, teamId: number, index: number, type: string): void {
  store.db.prepare('INSERT INTO group_types (team_id, group_type, group_type_index, name_singular, name_plural) VALUES (?, ?, ?, ?, ?)').run(teamId, type, index, type, `${type}s`);
}

/** Inserts `count` groups `<prefix>-0..n-1`, one minute apart (the last is the newest). */
export function insertGroups(store: SandboxStore, teamId: number, index: number, count: number, prefix = 'org'): void {
  const insert = store.db.prepare('INSERT INTO groups (team_id, group_type_index, group_key, group_properties, created_at) VALUES (?, ?, ?, ?, ?)');
  store.transaction(() => {
    for (let i = 0; i < count; i++) {
      const properties = JSON.stringify({ name: `${prefix} number ${i}`, plan: i % 10 === 0 ? 'enterprise' : 'free' });
      insert.run(teamId, index, `${prefix}-${i}`, properties, new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString());
    }
  });
}

/** Inserts events at the given ISO timestamps into a project. */
export function insertEvents(store: SandboxStore, teamId: number, events: Array<{ event: string; timestamp: string }>): void {
  const insert = store.db.prepare(
    `INSERT INTO events (team_id, uuid, event, distinct_id, timestamp, properties, historical_migration, endpoint, received_at)
     VALUES (?, ?, ?, 'user-1', ?, '{}', 1, '/batch/', ?)`,
  );
  // Stored as capture stores them: six fraction digits (see src/sandbox/stored-time.ts).
  store.transaction(() => events.forEach((e, i) => insert.run(teamId, `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, e.event, storedTime(e.timestamp), e.timestamp)));
}
