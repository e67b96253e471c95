/**
 * The sandbox's project memberships: explicit team memberships joined to their organization
 * membership and user. Both the explicit-members API and the access-control API read and
 * write these rows, so either view of a project's members sees the other's changes.
 */
import { randomUUID } from 'node:crypto';
import type { SandboxStore } from '../sandbox-store.js';

/** A membership row with its user's fields, as both queries below select them. */
interface MembershipWithUser {
  id: string;
  level: number;
  joined_at: string;
  updated_at: string;
  user_id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  last_name: string;
  email: string;
}

export interface MemberRow extends MembershipWithUser {
  parent_level: number;
  parent_membership_id: string;
}

export interface OrganizationMemberRow extends MembershipWithUser {
  organization_id: string;
}

const MEMBER_SELECT = `SELECT etm.id, etm.level, om.level AS parent_level, etm.parent_membership_id, etm.joined_at, etm.updated_at,
       u.id AS user_id, u.uuid, u.distinct_id, u.first_name, u.last_name, u.email
  FROM explicit_team_memberships etm
  JOIN organization_memberships om ON om.id = etm.parent_membership_id
  JOIN users u ON u.id = om.user_id`;

const ORGANIZATION_MEMBER_SELECT = `SELECT om.id, om.organization_id, om.level, om.joined_at, om.updated_at,
       u.id AS user_id, u.uuid, u.distinct_id, u.first_name, u.last_name, u.email
  FROM organization_memberships om JOIN users u ON u.id = om.user_id`;

export function findMember(store: SandboxStore, teamId: number, userUuid: string): MemberRow | undefined {
  return store.db.prepare(`${MEMBER_SELECT} WHERE etm.team_id = ? AND u.uuid = ?`).get(teamId, userUuid.toLowerCase()) as MemberRow | undefined;
}

/** As the service orders them: lowest level first, then the newest. */
export function listMembers(store: SandboxStore, teamId: number): MemberRow[] {
  return store.db.prepare(`${MEMBER_SELECT} WHERE etm.team_id = ? ORDER BY etm.level, etm.joined_at DESC, etm.id`).all(teamId) as MemberRow[];
}

export function memberJson(row: MemberRow): Record<string, unknown> {
  return {
    id: row.id,
    level: row.level,
    parent_level: row.parent_level,
    parent_membership_id: row.parent_membership_id,
    joined_at: row.joined_at,
    updated_at: row.updated_at,
    user: { id: row.user_id, uuid: row.uuid, distinct_id: row.distinct_id, first_name: row.first_name, last_name: row.last_name, email: row.email },
    effective_level: Math.max(row.level, row.parent_level),
  };
}

/** Sets a member's explicit level in a project, adding the membership when there is none. */
export function upsertMembership(store: SandboxStore, teamId: number, organizationMembershipId: string, level: number, at: string): void {
  const updated = store.db.prepare('UPDATE explicit_team_memberships SET level = ?, updated_at = ? WHERE team_id = ? AND parent_membership_id = ?').run(level, at, teamId, organizationMembershipId);
  if (updated.changes > 0) return;
  store.db
    .prepare('INSERT INTO explicit_team_memberships (id, team_id, parent_membership_id, level, joined_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(randomUUID(), teamId, organizationMembershipId, level, at, at);
}

export function removeMembership(store: SandboxStore, teamId: number, organizationMembershipId: string): void {
  store.db.prepare('DELETE FROM explicit_team_memberships WHERE team_id = ? AND parent_membership_id = ?').run(teamId, organizationMembershipId);
}

/** Lowest level first, then the newest, as the service lists organization members. */
export function organizationMembers(store: SandboxStore, organizationId: string): OrganizationMemberRow[] {
  return store.db.prepare(`${ORGANIZATION_MEMBER_SELECT} WHERE om.organization_id = ? ORDER BY om.level, om.joined_at DESC, om.id`).all(organizationId) as OrganizationMemberRow[];
}

export function organizationMember(store: SandboxStore, organizationId: string, where: { membershipId: string } | { userUuid: string }): OrganizationMemberRow | undefined {
  const [column, value] = 'membershipId' in where ? ['om.id', where.membershipId] : ['u.uuid', where.userUuid.toLowerCase()];
  return store.db.prepare(`${ORGANIZATION_MEMBER_SELECT} WHERE om.organization_id = ? AND ${column} = ?`).get(organizationId, value) as OrganizationMemberRow | undefined;
}
