/**
 * The personal key's scopes the tool's commands use, and PostHog's rule for granting them:
 * `*` grants everything, `object:write` implies `object:read`. Pure.
 */

export interface ScopeNeed {
  scope: string;
  /** What does not work without it. */
  usedBy: string;
  /** A write scope: it cannot be probed without changing something. */
  write?: boolean;
}

export const SCOPE_NEEDS: readonly ScopeNeed[] = [
  { scope: 'project:read', usedBy: 'the key check and `migrate projects`' },
  { scope: 'query:read', usedBy: '`migrate verify` and the existing-data check' },
  { scope: 'group:read', usedBy: '`migrate groups` and `migrate group-types`' },
  { scope: 'organization_member:read', usedBy: '`migrate members`' },
  { scope: 'access_control:read', usedBy: '`migrate members`' },
  { scope: 'access_control:write', usedBy: 'changing access with `migrate members`', write: true },
  { scope: 'export:read', usedBy: '`migrate exports`' },
  { scope: 'export:write', usedBy: 'creating exports', write: true },
  { scope: 'insight:read', usedBy: 'exports of insights' },
  { scope: 'dashboard:read', usedBy: 'exports of dashboards' },
  { scope: 'billing:read', usedBy: 'the billing check' },
];

export function grantsScope(scopes: readonly string[], needed: string): boolean {
  if (scopes.includes('*') || scopes.includes(needed)) return true;
  const [object, action] = needed.split(':');
  return action === 'read' && scopes.includes(`${object}:write`);
}

/** The scope a 403 names ("API key missing required scope 'query:read'"), if it names one. */
export function missingScopeIn(text: string): string | undefined {
  return /missing required scope '([^']+)'/.exec(text)?.[1];
}
