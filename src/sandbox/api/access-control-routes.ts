/**
 * Project access control, the way today's PostHog Cloud manages who is in a project:
 * `GET /api/projects/:id/users_with_access/`, and `GET|PUT /api/projects/:id/access_controls/`
 * keyed by organization membership id. Sandbox projects are private (a project-wide "none"
 * control): organization admins and owners get in, everyone else needs a member control,
 * stored as the same explicit membership the explicit-members API shows.
 */
import type { Route, SandboxRequest, SandboxResponse } from '../router.js';
import { json } from '../router.js';
import { effectiveLevel, projectRoute, type ApiContext } from './api-auth.js';
import { readJsonObject } from './api-body.js';
import { permissionDenied, required, validationError } from './api-errors.js';
import {
  accessChangeRefusal,
  accessLevelName,
  accessSource,
  explicitLevelFor,
  organizationLevelName,
  parseAccessLevel,
  PROJECT_ACCESS_LEVELS,
  type ProjectAccessLevel,
} from './access-control-rules.js';
import { ADMIN_LEVEL } from './member-rules.js';
import { listMembers, organizationMember, organizationMembers, removeMembership, upsertMembership, type OrganizationMemberRow } from './member-store.js';

const BASE = String.raw`^\/api\/(?:projects|environments)\/(\d+)`;

function usersWithAccess(_request: SandboxRequest, { store, project }: ApiContext): SandboxResponse {
  const users = organizationMembers(store, project.organization_id).flatMap((member) => {
    const level = effectiveLevel(store, member.user_id, project);
    if (typeof level !== 'number') return [];
    return [
      {
        user_id: member.uuid,
        access_level: accessLevelName(level),
        access_source: accessSource(member.level),
        organization_membership_id: member.id,
        organization_membership_level: organizationLevelName(member.level),
      },
    ];
  });
  // As the service sorts: highest access first, then by user uuid, both descending.
  const rank = (level: string) => PROJECT_ACCESS_LEVELS.indexOf(level as (typeof PROJECT_ACCESS_LEVELS)[number]);
  users.sort((a, b) => rank(b.access_level) - rank(a.access_level) || b.user_id.localeCompare(a.user_id));
  return json(200, { users, total_count: users.length });
}

function controlJson(projectId: number, member: string | null, accessLevel: string, createdBy: number | null, createdAt: string, updatedAt: string) {
  return {
    access_level: accessLevel,
    resource: 'project',
    resource_id: String(projectId),
    organization_member: member,
    role: null,
    created_by: createdBy,
    created_at: createdAt,
    updated_at: updatedAt,
  };
}

function listControls(_request: SandboxRequest, { store, project, level }: ApiContext): SandboxResponse {
  const members = listMembers(store, project.id).map((m) => controlJson(project.id, m.parent_membership_id, accessLevelName(m.level), null, m.joined_at, m.updated_at));
  return json(200, {
    access_controls: [controlJson(project.id, null, 'none', null, project.created_at, project.created_at), ...members],
    available_access_levels: PROJECT_ACCESS_LEVELS,
    default_access_level: 'admin',
    user_access_level: accessLevelName(level),
    user_can_edit_access_levels: level >= ADMIN_LEVEL,
  });
}

/** The body's fields, checked as the service's serializer does before any permission check. */
function readControl(body: Record<string, unknown>, context: ApiContext): SandboxResponse | { member: OrganizationMemberRow; level: ProjectAccessLevel | null } {
  const parsed = parseAccessLevel(body);
  if ('missing' in parsed) return required('access_level');
  if ('invalid' in parsed) return validationError('invalid_input', parsed.invalid, 'access_level');
  const memberId = body.organization_member;
  if (memberId === undefined || memberId === null) {
    return validationError('invalid_input', 'The sandbox models access for one organization member at a time: give organization_member.', 'organization_member');
  }
  const member = typeof memberId === 'string' ? organizationMember(context.store, context.project.organization_id, { membershipId: memberId }) : undefined;
  if (member === undefined) return validationError('does_not_exist', `Invalid pk "${String(memberId)}" - object does not exist.`, 'organization_member');
  return { member, level: parsed.level };
}

async function putControl(request: SandboxRequest, context: ApiContext): Promise<SandboxResponse> {
  const { store, project, caller } = context;
  const body = await readJsonObject(request);
  if (!body.ok) return body.response;
  const control = readControl(body.value, context);
  if ('status' in control) return control;
  const { member, level } = control;
  const current = listMembers(store, project.id).find((m) => m.parent_membership_id === member.id);
  const refusal = accessChangeRefusal({ requesterUserId: caller.userId, requesterLevel: context.level, targetUserId: member.user_id, targetLevel: current?.level ?? 0, newLevel: level });
  if (refusal !== undefined) return permissionDenied(refusal);
  const explicit = explicitLevelFor(level);
  const at = context.now().toISOString();
  // "none" is stored as no membership: in a private project the two grant the same (nothing).
  if (explicit === null) removeMembership(store, project.id, member.id);
  else upsertMembership(store, project.id, member.id, explicit, at);
  if (level === null) return { status: 204 };
  return json(200, controlJson(project.id, member.id, level, caller.userId, current?.joined_at ?? at, at));
}

export const accessControlRoutes: Route[] = [
  projectRoute('GET', new RegExp(`${BASE}\\/users_with_access\\/?$`), 'access_control:read', usersWithAccess),
  projectRoute('GET', new RegExp(`${BASE}\\/access_controls\\/?$`), 'access_control:read', listControls),
  projectRoute('PUT', new RegExp(`${BASE}\\/access_controls\\/?$`), 'access_control:write', putControl),
];
