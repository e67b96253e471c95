/**
 * The sandbox's two projects, a test one and a production one, each with its own project API
 * token. Made on the first open of a store (random tokens) and kept in it, so a config written
 * against a sandbox file keeps working across restarts.
 */
import { randomBytes } from 'node:crypto';
import type { Database } from '../sqlite/database.js';
import { SANDBOX_ORGANIZATION_ID, SANDBOX_PRODUCTION_PROJECT_ID, SANDBOX_TEST_PROJECT_ID } from './sandbox-seed-ids.js';
/** The store's database (sandbox-store.ts seeds its projects through this file, so the type is not imported back). */
type ProjectsStore = { readonly db: Database };

export interface SandboxProject {
  id: number;
  name: string;
  role: 'test' | 'production';
  apiToken: string;
}

const SEEDED = [
  { id: SANDBOX_TEST_PROJECT_ID, name: 'Test project', role: 'test' },
  { id: SANDBOX_PRODUCTION_PROJECT_ID, name: 'Production project', role: 'production' },
] as const;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A token shaped like PostHog's: `phc_` and 43 letters and digits. */
export function newProjectToken(): string {
  let out = 'phc_';
  for (const byte of randomBytes(43)) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

/** Creates the seeded projects that are missing; existing ones keep their tokens. */
export function seedProjects(db: Database): void {
  const insert = db.prepare('INSERT OR IGNORE INTO projects (id, name, api_token, organization_id, timezone, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (const project of SEEDED) insert.run(project.id, project.name, newProjectToken(), SANDBOX_ORGANIZATION_ID, 'UTC', new Date().toISOString());
  })();
}

export function listSandboxProjects(store: ProjectsStore): SandboxProject[] {
  const rows = store.db.prepare('SELECT id, name, api_token AS apiToken FROM projects ORDER BY id').all() as Array<Omit<SandboxProject, 'role'>>;
  return rows.map((row) => ({ ...row, role: row.id === SANDBOX_PRODUCTION_PROJECT_ID ? 'production' : 'test' }));
}

export function projectIdForToken(store: ProjectsStore, token: string): number | undefined {
  const row = store.db.prepare('SELECT id FROM projects WHERE api_token = ?').get(token) as { id: number } | undefined;
  return row?.id;
}
