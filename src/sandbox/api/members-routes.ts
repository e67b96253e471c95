/** `/api/environments/:id/explicit_members/:user_uuid/`: read, change the level of, or remove a member. */
import type { Route, SandboxRequest, SandboxResponse } from '../router.js';
import { json } from '../router.js';
import type { SandboxStore } from '../sandbox-store.js';
import { projectRoute, type ApiContext } from './api-auth.js';
import { readJsonObject } from './api-body.js';
import { notFound, permissionDenied, validationError } from './api-errors.js';
import { levelChangeRefusal, parseLevel, writeRefusal } from './member-rules.js';

const PATH = /^\/api\/(?:projects|environments)\/(\d+)\/explicit_members\/([^/]+)\/?$/;

interface MemberRow {
  id: string;
  level: number;
  parent_level: number;
  parent_membership_id: string;
  joined_at: string;
  updated_at: string;
  user_id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  last_name: string;
  email: string;
}

function findMember(store: SandboxStore, teamId: number, userUuid: string): MemberRow | undefined {
  return store.db
    .prepare(
      `SELECT etm.id, etm.level, om.level AS parent_level, etm.parent_membership_id, etm.joined_at, etm.updated_at,
              u.id AS user_id, u.uuid, u.distinct_id, u.first_name, u.last_name, u.email
       FROM explicit_team_memberships etm
       JOIN organization_memberships om ON om.id = etm.parent_membership_id
       JOIN users u ON u.id = om.user_id
       WHERE etm.team_id = ? AND u.uuid = ?`,
    )
    .get(teamId, userUuid.toLowerCase()) as MemberRow | undefined;
}

function memberJson(row: MemberRow): Record<string, unknown> {
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

async function updateMember(request: SandboxRequest, context: ApiContext): Promise<SandboxResponse> {
  const { store, project, caller, level, params } = context;
  const refusal = writeRefusal('PATCH', level, false);
  if (refusal !== undefined) return permissionDenied(refusal);
  const row = findMember(store, project.id, params[0] ?? '');
  if (row === undefined) return notFound();
  const body = await readJsonObject(request);
  if (!body.ok) return body.response;
  const parsed = parseLevel(body.value);
  if ('invalid' in parsed) return validationError('invalid_choice', `"${parsed.invalid}" is not a valid choice.`, 'level');
  const change = { requesterUserId: caller.userId, requesterLevel: level, targetUserId: row.user_id, targetLevel: row.level, newLevel: parsed.level };
  const changeRefusal = levelChangeRefusal(change);
  if (changeRefusal !== undefined) return permissionDenied(changeRefusal);
  if (parsed.level !== undefined) {
    store.db.prepare('UPDATE explicit_team_memberships SET level = ?, updated_at = ? WHERE id = ?').run(parsed.level, context.now().toISOString(), row.id);
  }
  return json(200, memberJson(findMember(store, project.id, row.uuid)!));
}

function removeMember(context: ApiContext): SandboxResponse {
  const { store, project, caller, level, params } = context;
  const userUuid = (params[0] ?? '').toLowerCase();
  const refusal = writeRefusal('DELETE', level, userUuid === caller.userUuid);
  if (refusal !== undefined) return permissionDenied(refusal);
  const row = findMember(store, project.id, userUuid);
  if (row === undefined) return notFound();
  store.db.prepare('DELETE FROM explicit_team_memberships WHERE id = ?').run(row.id);
  return { status: 204 };
}

export const membersRoutes: Route[] = [
  projectRoute('GET', PATH, 'project:read', (_request, { store, project, params }) => {
    const row = findMember(store, project.id, params[0] ?? '');
    return row === undefined ? notFound() : json(200, memberJson(row));
  }),
  projectRoute('PATCH', PATH, 'project:write', updateMember),
  projectRoute('DELETE', PATH, 'project:write', (_request, context) => removeMember(context)),
];
