/**
 * Project access control as today's PostHog words it, over the sandbox's numeric levels, as
 * pure functions: the level names, how a user came by their access, and who may change whose.
 */
import { ADMIN_LEVEL, levelChangeRefusal } from './member-rules.js';

/** A project's access levels, lowest first: PostHog's `ordered_access_levels("project")`. */
export const PROJECT_ACCESS_LEVELS = ['none', 'member', 'admin'] as const;
export type ProjectAccessLevel = (typeof PROJECT_ACCESS_LEVELS)[number];

/** PostHog's refusal when a non-admin changes project access. */
export const MUST_BE_ADMIN = 'Must be admin to modify project permissions.';

const ORGANIZATION_LEVEL_NAMES: Record<number, string> = { 1: 'member', 8: 'admin', 15: 'owner' };

export function organizationLevelName(level: number): string {
  return ORGANIZATION_LEVEL_NAMES[level] ?? String(level);
}

/** An effective project level (1, 8 or 15) as an access level: owners are project admins. */
export function accessLevelName(level: number): ProjectAccessLevel {
  return level >= ADMIN_LEVEL ? 'admin' : 'member';
}

/** The explicit level an access level stores, or null for none (no membership). */
export function explicitLevelFor(accessLevel: ProjectAccessLevel | null): number | null {
  if (accessLevel === 'admin') return ADMIN_LEVEL;
  return accessLevel === 'member' ? 1 : null;
}

/** How a user has access: organization admins and owners always; everyone else through a membership. */
export function accessSource(organizationLevel: number): 'organization_admin' | 'explicit_member' {
  return organizationLevel >= ADMIN_LEVEL ? 'organization_admin' : 'explicit_member';
}

/** The body's access_level: a known level, null (remove), or why it is refused. */
export function parseAccessLevel(body: Record<string, unknown>): { level: ProjectAccessLevel | null } | { missing: true } | { invalid: string } {
  if (!('access_level' in body)) return { missing: true };
  const value = body.access_level;
  if (value === null) return { level: null };
  if (typeof value === 'string' && (PROJECT_ACCESS_LEVELS as readonly string[]).includes(value)) return { level: value as ProjectAccessLevel };
  return { invalid: `Invalid access level. Must be one of: ${PROJECT_ACCESS_LEVELS.join(', ')}` };
}

export interface AccessChange {
  requesterUserId: number;
  /** The requester's effective project level (15 for an organization owner). */
  requesterLevel: number;
  targetUserId: number;
  /** The target's current explicit level, 0 without a membership. */
  targetLevel: number;
  newLevel: ProjectAccessLevel | null;
}

/**
 * Why this change is refused (403), or undefined. PostHog asks for a project admin; the
 * sandbox also keeps the explicit-members rules (nobody sets their own level or grants above
 * their own), which Cloud's access-control code does not check. Removing yourself is leaving.
 */
export function accessChangeRefusal(change: AccessChange): string | undefined {
  if (change.requesterLevel < ADMIN_LEVEL) return MUST_BE_ADMIN;
  const newLevel = explicitLevelFor(change.newLevel) ?? undefined;
  return levelChangeRefusal({ ...change, newLevel });
}
