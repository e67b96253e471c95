/**
 * Sandboxes holding configuration objects, for `copy-config` tests: each started in-process with
 * its two projects and the owner's key, read and written through the management API.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxPersonalKey } from '../../src/sandbox/api/management-seed.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import type { SandboxStore } from '../../src/sandbox/sandbox-store.js';
import { apiCaller, type ApiCall } from './api-call.js';
import { ensureProjects } from './management-sandbox.js';

// biome-ignore lint/suspicious/noExplicitAny: the API's answers are read as loosely as a test reads JSON
export type Json = Record<string, any>;

export interface ConfigSandbox {
  sandbox: RunningSandbox;
  api: ApiCall;
  key: string;
  close(): Promise<void>;
}

export async function configSandbox(options: Parameters<typeof startSandbox>[0] = {}): Promise<ConfigSandbox> {
  const sandbox = await startSandbox({ port: 0, ...options });
  ensureProjects(sandbox.store);
  const key = sandboxPersonalKey(sandbox.store, 'owner-all');
  const api = apiCaller(
    () => sandbox.url,
    () => key,
  );
  return {
    sandbox,
    key,
    api,
    close: async () => {
      await api.close();
      await sandbox.close();
    },
  };
}

export function insertPerson(store: SandboxStore, teamId: number, distinctId: string): void {
  const id = Number(store.db.prepare("INSERT INTO persons (team_id, properties, created_at) VALUES (?, '{}', '2025-01-01T00:00:00Z')").run(teamId).lastInsertRowid);
  store.db.prepare('INSERT INTO person_distinct_ids (team_id, distinct_id, person_id) VALUES (?, ?, ?)').run(teamId, distinctId, id);
}

export async function post(api: ApiCall, resource: string, body: Json, project = 1): Promise<Json> {
  const reply = await api('POST', `/api/projects/${project}/${resource}/`, 'owner', body);
  if (reply.status !== 201) throw new Error(`${resource}: ${reply.status} ${reply.text}`);
  return reply.json();
}

export async function patch(api: ApiCall, resource: string, id: number, body: Json, project = 1): Promise<Json> {
  const reply = await api('PATCH', `/api/projects/${project}/${resource}/${id}/`, 'owner', body);
  if (reply.status !== 200) throw new Error(`${resource} ${id}: ${reply.status} ${reply.text}`);
  return reply.json();
}

export async function list(api: ApiCall, resource: string, project = 1): Promise<Json[]> {
  return (await api('GET', `/api/projects/${project}/${resource}/?limit=1000`, 'owner')).json<{ results: Json[] }>().results;
}

export async function one(api: ApiCall, resource: string, id: number, project = 1): Promise<Json> {
  return (await api('GET', `/api/projects/${project}/${resource}/${id}/`, 'owner')).json();
}

export function byName(objects: Json[], name: string): Json {
  const found = objects.find((o) => o.name === name || o.key === name || o.content === name);
  if (found === undefined) throw new Error(`no ${name} among ${objects.map((o) => o.name ?? o.key ?? o.content).join(', ')}`);
  return found;
}

/** A config file naming `old` and `new` projects; returns its path. */
export function writeCopyConfig(dir: string, from: { url: string; key: string; projectId?: number }, to: { url: string; key: string; projectId?: number }, file = 'migrate.config.json'): string {
  const project = (side: typeof from) => ({ role: 'test', host: side.url, projectId: side.projectId ?? 1, personalApiKey: side.key });
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify({ projects: { old: project(from), new: project(to) } }));
  return path;
}
