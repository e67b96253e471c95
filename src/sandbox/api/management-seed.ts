/**
 * The sandbox's people: one organization, an owner, an administrator and two members with
 * explicit project memberships, and personal API keys with different scopes, so every rule of
 * the management API (levels, scopes) can be tried locally. Seeded once per store; the keys are
 * random per sandbox file and listed by `sandboxPersonalKeys` for `migrate sandbox` to print.
 */
import { randomBytes } from 'node:crypto';
import type { SandboxStore } from '../sandbox-store.js';
import { SANDBOX_ORGANIZATION_ID, SANDBOX_PRODUCTION_PROJECT_ID, SANDBOX_TEST_PROJECT_ID } from '../sandbox-seed-ids.js';

export const SANDBOX_USERS = {
  owner: { id: 1, uuid: '01930000-0000-7000-8000-0000000000b1', firstName: 'Olivia', lastName: 'Owner', email: 'olivia@sandbox.local', orgLevel: 15 },
  admin: { id: 2, uuid: '01930000-0000-7000-8000-0000000000b2', firstName: 'Ada', lastName: 'Admin', email: 'ada@sandbox.local', orgLevel: 1 },
  member: { id: 3, uuid: '01930000-0000-7000-8000-0000000000b3', firstName: 'Milo', lastName: 'Member', email: 'milo@sandbox.local', orgLevel: 1 },
  newcomer: { id: 4, uuid: '01930000-0000-7000-8000-0000000000b4', firstName: 'Nia', lastName: 'Newcomer', email: 'nia@sandbox.local', orgLevel: 1 },
} as const;

type SeedUser = keyof typeof SANDBOX_USERS;

/** Explicit project memberships: [user, project id, level]. The owner needs none. */
const MEMBERSHIPS: ReadonlyArray<readonly [SeedUser, number, 1 | 8]> = [
  ['admin', SANDBOX_TEST_PROJECT_ID, 8],
  ['admin', SANDBOX_PRODUCTION_PROJECT_ID, 8],
  ['member', SANDBOX_TEST_PROJECT_ID, 1],
  ['member', SANDBOX_PRODUCTION_PROJECT_ID, 1],
  ['newcomer', SANDBOX_TEST_PROJECT_ID, 1],
];

/**
 * Personal API keys: label, owner, scopes. Labels are stable; values are random per sandbox.
 * Append only: a key's id follows its place in this list, and sandbox files made before a key
 * was added get it on their next open.
 */
export const SANDBOX_KEY_SPECS: ReadonlyArray<{ label: string; user: SeedUser; scopes: readonly string[] }> = [
  { label: 'owner-all', user: 'owner', scopes: ['*'] },
  { label: 'admin-all', user: 'admin', scopes: ['*'] },
  { label: 'admin-read-only', user: 'admin', scopes: ['project:read', 'group:read', 'export:read'] },
  { label: 'member-all', user: 'member', scopes: ['*'] },
  { label: 'owner-exports-only', user: 'owner', scopes: ['export:write'] },
  { label: 'owner-no-query', user: 'owner', scopes: ['project:write', 'group:read', 'export:write', 'insight:read', 'dashboard:read', 'access_control:write', 'organization_member:read'] },
  { label: 'owner-query-only', user: 'owner', scopes: ['query:read'] },
  { label: 'admin-access-read-only', user: 'admin', scopes: ['access_control:read', 'organization_member:read'] },
];

export interface SandboxPersonalKey {
  label: string;
  value: string;
  email: string;
  scopes: string[];
}

function membershipId(prefix: string, n: number): string {
  return `01930000-0000-7000-8000-${prefix}${String(n).padStart(12 - prefix.length, '0')}`;
}

function seedPeople(store: SandboxStore, at: string): void {
  const db = store.db;
  db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run(SANDBOX_ORGANIZATION_ID, 'Sandbox organization', at);
  const user = db.prepare('INSERT INTO users (id, uuid, distinct_id, first_name, last_name, email) VALUES (?, ?, ?, ?, ?, ?)');
  const orgMember = db.prepare('INSERT INTO organization_memberships (id, organization_id, user_id, level, joined_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
  for (const u of Object.values(SANDBOX_USERS)) {
    user.run(u.id, u.uuid, `sandbox-user-${u.id}`, u.firstName, u.lastName, u.email);
    orgMember.run(membershipId('c', u.id), SANDBOX_ORGANIZATION_ID, u.id, u.orgLevel, at, at);
  }
  const explicit = db.prepare('INSERT INTO explicit_team_memberships (id, team_id, parent_membership_id, level, joined_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
  MEMBERSHIPS.forEach(([who, teamId, level], i) => {
    explicit.run(membershipId('d', i + 1), teamId, membershipId('c', SANDBOX_USERS[who].id), level, at, at);
  });
}

/** Adds the keys this store does not have yet; existing keys keep their values. */
function seedKeys(store: SandboxStore, at: string): void {
  const insert = store.db.prepare('INSERT OR IGNORE INTO personal_api_keys (id, user_id, label, value, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  SANDBOX_KEY_SPECS.forEach((spec, i) => {
    const value = `phx_${randomBytes(30).toString('base64url')}`;
    insert.run(membershipId('e', i + 1), SANDBOX_USERS[spec.user].id, spec.label, value, JSON.stringify(spec.scopes), at);
  });
}

/** Seeds the organization, users and memberships once, and any key the store lacks; later opens change nothing else. */
export function seedManagementData(store: SandboxStore, now: () => Date = () => new Date()): void {
  const seeded = store.db.prepare('SELECT 1 FROM organizations WHERE id = ?').get(SANDBOX_ORGANIZATION_ID);
  const at = now().toISOString();
  store.transaction(() => {
    if (seeded === undefined) seedPeople(store, at);
    seedKeys(store, at);
  });
}

/** The sandbox's personal API keys, for `migrate sandbox` to print and tests to use. */
export function sandboxPersonalKeys(store: SandboxStore): SandboxPersonalKey[] {
  const rows = store.db.prepare('SELECT k.label, k.value, k.scopes, u.email FROM personal_api_keys k JOIN users u ON u.id = k.user_id ORDER BY k.id').all() as Array<{
    label: string;
    value: string;
    scopes: string;
    email: string;
  }>;
  return rows.map((r) => ({ label: r.label, value: r.value, email: r.email, scopes: JSON.parse(r.scopes) as string[] }));
}

/** One key's value by label (tests and docs refer to keys by their stable label). */
export function sandboxPersonalKey(store: SandboxStore, label: string): string {
  const key = sandboxPersonalKeys(store).find((k) => k.label === label);
  if (key === undefined) throw new Error(`no sandbox personal key labelled ${label}`);
  return key.value;
}
