/**
 * `/api/environments/:id/explicit_members/`: the explicit-members API older self-hosted
 * PostHog still serves (Cloud retired it for access control). List and add members; read,
 * change the level of, or remove one by user uuid. An organization owner without an explicit
 * membership is not listed and reads as 404 here, as in the service; access control's
 * `users_with_access` shows them.
 */
import type { Route, SandboxRequest, SandboxResponse } from '../router.js';
import { json } from '../router.js';
import { projectRoute, type ApiContext } from './api-auth.js';
import { readJsonObject } from './api-body.js';
import { apiError, notFound, permissionDenied, required, validationError } from './api-errors.js';
import { findMember, listMembers, memberJson, organizationMember, upsertMembership, type MemberRow } from './member-store.js';
import { levelChangeRefusal, parseLevel, writeRefusal } from './member-rules.js';

const COLLECTION = /^\/api\/(?:projects|environments)\/(\d+)\/explicit_members\/?$/;
const ONE = /^\/api\/(?:projects|environments)\/(\d+)\/explicit_members\/([^/]+)\/?$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

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
  if (parsed.level !== undefined) upsertMembership(store, project.id, row.parent_membership_id, parsed.level, context.now().toISOString());
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

/** The checks of the service's serializer, in its order: fields, then who may add whom. */
function addRefusal(body: Record<string, unknown>, context: ApiContext): SandboxResponse | { userUuid: string; level: number } {
  const userUuid = body.user_uuid;
  if (userUuid === undefined || userUuid === null) return required('user_uuid');
  if (typeof userUuid !== 'string' || !UUID.test(userUuid)) return validationError('invalid_input', 'Must be a valid UUID.', 'user_uuid');
  const parsed = parseLevel(body);
  if ('invalid' in parsed) return validationError('invalid_choice', `"${parsed.invalid}" is not a valid choice.`, 'level');
  const level = parsed.level ?? 1;
  if (userUuid.toLowerCase() === context.caller.userUuid) return permissionDenied("You can't explicitly add yourself to projects.");
  if (level > context.level) return permissionDenied('You can only set access level to lower or equal to your current one.');
  return { userUuid: userUuid.toLowerCase(), level };
}

async function addMember(request: SandboxRequest, context: ApiContext): Promise<SandboxResponse> {
  const { store, project, level } = context;
  const refusal = writeRefusal('PATCH', level, false);
  if (refusal !== undefined) return permissionDenied(refusal);
  const body = await readJsonObject(request);
  if (!body.ok) return body.response;
  const valid = addRefusal(body.value, context);
  if ('status' in valid) return valid;
  const parent = organizationMember(store, project.organization_id, { userUuid: valid.userUuid });
  if (parent === undefined) return permissionDenied('You both need to belong to the same organization.');
  if (findMember(store, project.id, valid.userUuid) !== undefined) {
    return apiError(400, 'validation_error', 'invalid_input', 'This user likely already is an explicit member of the project.');
  }
  upsertMembership(store, project.id, parent.id, valid.level, context.now().toISOString());
  return json(201, memberJson(findMember(store, project.id, valid.userUuid) as MemberRow));
}

/** The explicit-members routes, or none (Cloud: every such path answers 404 "Endpoint not found."). */
export function explicitMembersRoutes(enabled: boolean): Route[] {
  if (!enabled) return [];
  return [
    projectRoute('GET', COLLECTION, 'project:read', (_request, { store, project }) => json(200, listMembers(store, project.id).map(memberJson))),
    projectRoute('POST', COLLECTION, 'project:write', addMember),
    projectRoute('GET', ONE, 'project:read', (_request, { store, project, params }) => {
      const row = findMember(store, project.id, params[0] ?? '');
      return row === undefined ? notFound() : json(200, memberJson(row));
    }),
    projectRoute('PATCH', ONE, 'project:write', updateMember),
    projectRoute('DELETE', ONE, 'project:write', (_request, context) => removeMember(context)),
  ];
}
