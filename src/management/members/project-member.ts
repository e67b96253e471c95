/**
 * One person's access to a project, the same whichever API told it, so `members` prints and
 * `--json` shapes alike on both. Field names follow the explicit-members API (`level`,
 * `effective_level`, `parent_level`, `user`), with access control's words added. Pure.
 */
import { ADMIN_LEVEL, effectiveLevel, levelForAccess, organizationLevelFor, type AccessLevelName } from './member-levels.js';
import type { ExplicitMember, MemberUser, OrganizationMember, UserAccess } from './members-schemas.js';

/** The API an instance manages project members with. */
export type MembersApi = 'explicit_members' | 'access_control';

export interface ProjectMember {
  user: MemberUser;
  /** The project grant: 1 member, 8 administrator; null when the access comes from elsewhere (the organization). */
  level: number | null;
  /** The access that results: the higher of the grant and the organization level (15 for an owner). */
  effective_level: number;
  /** The organization level (1, 8, 15), when known. */
  parent_level: number | null;
  access_level: AccessLevelName;
  /** How the access is held: `explicit_member`, `organization_admin`, or another of access control's sources. */
  access_source: string;
  organization_membership_id: string | null;
  joined_at: string | null;
  updated_at: string | null;
}

/** Access control's sources that are a grant to this one person in the project (what add/update/remove change). */
const PERSONAL_SOURCES: readonly string[] = ['explicit_member', 'project_admin'];

export function isPersonalGrant(source: string): boolean {
  return PERSONAL_SOURCES.includes(source);
}

function accessOf(level: number): AccessLevelName {
  return level >= ADMIN_LEVEL ? 'admin' : 'member';
}

export function fromExplicitMember(m: ExplicitMember): ProjectMember {
  return {
    user: m.user,
    level: m.level,
    effective_level: m.effective_level,
    parent_level: m.parent_level ?? null,
    access_level: accessOf(m.effective_level),
    access_source: 'explicit_member',
    organization_membership_id: m.parent_membership_id ?? null,
    joined_at: m.joined_at ?? null,
    updated_at: m.updated_at ?? null,
  };
}

/** An organization admin or owner, who enters every project of the organization without a grant. */
export function fromOrganizationAdmin(o: OrganizationMember): ProjectMember {
  return {
    user: o.user,
    level: null,
    effective_level: o.level,
    parent_level: o.level,
    access_level: 'admin',
    access_source: 'organization_admin',
    organization_membership_id: o.id,
    joined_at: o.joined_at ?? null,
    updated_at: o.updated_at ?? null,
  };
}

/** A `users_with_access` entry, with the person's name when the organization's list had them. */
export function fromUserAccess(a: UserAccess, person: OrganizationMember | undefined): ProjectMember {
  const parentLevel = a.organization_membership_level ? (organizationLevelFor(a.organization_membership_level) ?? null) : (person?.level ?? null);
  const granted = levelForAccess(a.access_level) ?? null;
  const level = isPersonalGrant(a.access_source) ? granted : null;
  return {
    user: person?.user ?? { uuid: a.user_id },
    level,
    effective_level: effectiveLevel(granted, parentLevel),
    parent_level: parentLevel,
    access_level: a.access_level === 'admin' ? 'admin' : 'member',
    access_source: a.access_source,
    organization_membership_id: a.organization_membership_id ?? person?.id ?? null,
    joined_at: null,
    updated_at: null,
  };
}
