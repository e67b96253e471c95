/**
 * Who is calling and what they may do, in the service's order: credentials (401), the key's
 * scopes (403), the project (404, or 403 without access), then the rate limit (429). Each
 * protected route declares its scope; handlers receive the caller and their level.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Route, RouteHandler, SandboxContext, SandboxRequest, SandboxResponse } from '../router.js';
import type { SandboxStore } from '../sandbox-store.js';
import { authenticationFailed, missingScope, notAuthenticated, notFound, permissionDenied, throttled } from './api-errors.js';
import { takeRequest } from './api-throttle.js';

export interface ApiCaller {
  keyId: string;
  userId: number;
  userUuid: string;
  scopes: string[];
}

export interface ProjectRow {
  id: number;
  name: string;
  api_token: string;
  organization_id: string;
  timezone: string;
  created_at: string;
}

export interface ApiContext extends SandboxContext {
  caller: ApiCaller;
  /** Set for routes under a project (`/api/projects/:id/`, `/api/environments/:id/`). */
  project: ProjectRow;
  /** The caller's effective level in that project: 1 member, 8 admin, 15 owner. */
  level: number;
}

export type ApiHandler = (request: SandboxRequest, context: ApiContext) => Promise<SandboxResponse> | SandboxResponse;
export type CallerHandler = (request: SandboxRequest, context: SandboxContext & { caller: ApiCaller }) => Promise<SandboxResponse> | SandboxResponse;

/** Pure: `*` grants all; `x:write` implies `x:read`. */
export function hasScope(scopes: readonly string[], needed: string): boolean {
  if (scopes.includes('*') || scopes.includes(needed)) return true;
  const [object, action] = needed.split(':');
  return action === 'read' && scopes.includes(`${object}:write`);
}

function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

function authenticate(store: SandboxStore, headers: IncomingHttpHeaders): ApiCaller | SandboxResponse {
  const token = bearerToken(headers);
  if (token === undefined) return notAuthenticated();
  const row = store.db.prepare('SELECT k.id, k.user_id, k.scopes, u.uuid FROM personal_api_keys k JOIN users u ON u.id = k.user_id WHERE k.value = ?').get(token) as
    | { id: string; user_id: number; scopes: string; uuid: string }
    | undefined;
  if (row === undefined) return authenticationFailed();
  return { keyId: row.id, userId: row.user_id, userUuid: row.uuid, scopes: JSON.parse(row.scopes) as string[] };
}

/** The caller's effective level in a project, or null when they have no access. */
export function effectiveLevel(store: SandboxStore, userId: number, project: ProjectRow): number | null | 'not-in-organization' {
  const row = store.db
    .prepare(
      `SELECT om.level AS parent, etm.level AS explicit FROM organization_memberships om
       LEFT JOIN explicit_team_memberships etm ON etm.parent_membership_id = om.id AND etm.team_id = ?
       WHERE om.organization_id = ? AND om.user_id = ?`,
    )
    .get(project.id, project.organization_id, userId) as { parent: number; explicit: number | null } | undefined;
  if (row === undefined) return 'not-in-organization';
  if (row.explicit !== null) return Math.max(row.explicit, row.parent);
  // Projects here are access-controlled: without an explicit membership only org admins get in.
  return row.parent >= 8 ? row.parent : null;
}

function projectAccess(store: SandboxStore, caller: ApiCaller, projectId: string): { project: ProjectRow; level: number } | SandboxResponse {
  const project = store.db.prepare('SELECT * FROM projects WHERE id = ?').get(Number(projectId)) as ProjectRow | undefined;
  if (project === undefined) return notFound('Project not found.');
  const level = effectiveLevel(store, caller.userId, project);
  // Outside the organization the service answers as if the project did not exist.
  if (level === 'not-in-organization') return notFound('Project not found.');
  if (level === null) return permissionDenied('You do not have the required access to this project.');
  return { project, level };
}

function isResponse(value: object): value is SandboxResponse {
  return 'status' in value;
}

function admit(request: SandboxRequest, context: SandboxContext, scope: string | null): ApiCaller | SandboxResponse {
  const caller = authenticate(context.store, request.headers);
  if (isResponse(caller)) return caller;
  if (scope !== null && !hasScope(caller.scopes, scope)) return missingScope(scope);
  return caller;
}

function checkThrottle(context: SandboxContext, caller: ApiCaller): SandboxResponse | undefined {
  const wait = takeRequest(context.store, caller.keyId, context.now().getTime());
  return wait > 0 ? throttled(wait) : undefined;
}

/** A route that needs a key with `scope` and nothing else (e.g. the list of projects); `null` for any valid key. */
export function callerRoute(method: string, path: RegExp, scope: string | null, handler: CallerHandler): Route {
  const wrapped: RouteHandler = (request, context) => {
    const caller = admit(request, context, scope);
    if (isResponse(caller)) return caller;
    return checkThrottle(context, caller) ?? handler(request, { ...context, caller });
  };
  return { method, path, handler: wrapped };
}

/** A route under a project: the first path group is the project id. */
export function projectRoute(method: string, path: RegExp, scope: string, handler: ApiHandler): Route {
  const wrapped: RouteHandler = (request, context) => {
    const caller = admit(request, context, scope);
    if (isResponse(caller)) return caller;
    const access = projectAccess(context.store, caller, context.params[0] ?? '');
    if (isResponse(access)) return access;
    return checkThrottle(context, caller) ?? handler(request, { ...context, caller, ...access, params: context.params.slice(1) });
  };
  return { method, path, handler: wrapped };
}
