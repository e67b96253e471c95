/**
 * Project access levels in both of PostHog's vocabularies: the explicit-members API counts
 * (1 member, 8 administrator; an organization owner is 15), access control names them
 * ("member", "admin"; "none" or null for no access). Pure, mapped both ways.
 */

export const MEMBER_LEVEL = 1;
export const ADMIN_LEVEL = 8;
export const OWNER_LEVEL = 15;

/** The levels a project grant can hold. */
export type ProjectLevel = typeof MEMBER_LEVEL | typeof ADMIN_LEVEL;
export type AccessLevelName = 'member' | 'admin';

/** 1 -> "member", 8 -> "admin". */
export function accessLevelFor(level: ProjectLevel): AccessLevelName {
  return level === ADMIN_LEVEL ? 'admin' : 'member';
}

/** "member" -> 1, "admin" -> 8; "none" (and null) -> null: no access. Undefined for a name PostHog does not use. */
export function levelForAccess(name: string | null): ProjectLevel | null | undefined {
  if (name === null || name === 'none') return null;
  if (name === 'member') return MEMBER_LEVEL;
  if (name === 'admin') return ADMIN_LEVEL;
  return undefined;
}

const ORGANIZATION_LEVELS: Readonly<Record<string, number>> = { member: MEMBER_LEVEL, admin: ADMIN_LEVEL, owner: OWNER_LEVEL };

/** An organization level as access control names it ("member", "admin", "owner") -> 1, 8, 15. */
export function organizationLevelFor(name: string): number | undefined {
  return ORGANIZATION_LEVELS[name];
}

/** 1, 8, 15 -> "member", "admin", "owner", as access control names organization levels. */
export function organizationLevelName(level: number): string {
  return Object.entries(ORGANIZATION_LEVELS).find(([, n]) => n === level)?.[0] ?? String(level);
}

const LEVEL_NAMES: Readonly<Record<number, string>> = { [MEMBER_LEVEL]: 'member', [ADMIN_LEVEL]: 'administrator', [OWNER_LEVEL]: 'owner' };

/** 8 -> "administrator"; a level PostHog does not define reads "custom". */
export function levelName(level: number): string {
  return LEVEL_NAMES[level] ?? 'custom';
}

/** The access a project grant and an organization level give together: the higher one. */
export function effectiveLevel(projectLevel: number | null, organizationLevel: number | null): number {
  return Math.max(projectLevel ?? 0, organizationLevel ?? 0);
}
