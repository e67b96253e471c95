/**
 * `GET /api/organizations/:id/members/` (`@current` for the caller's organization): offset
 * pages of memberships, lowest level first. A membership's `id` is what access control's
 * `organization_member` takes.
 */
import type { Route, SandboxRequest, SandboxResponse } from '../router.js';
import { json } from '../router.js';
import type { SandboxStore } from '../sandbox-store.js';
import { callerRoute, type ApiCaller } from './api-auth.js';
import { notFound } from './api-errors.js';
import { limitOffset, offsetPage } from './api-pagination.js';
import { organizationMembers, type OrganizationMemberRow } from './member-store.js';

function memberJson(row: OrganizationMemberRow): Record<string, unknown> {
  return {
    id: row.id,
    user: {
      id: row.user_id,
      uuid: row.uuid,
      distinct_id: row.distinct_id,
      first_name: row.first_name,
      last_name: row.last_name,
      email: row.email,
      is_email_verified: true,
      hedgehog_config: null,
      role_at_organization: null,
    },
    level: row.level,
    joined_at: row.joined_at,
    updated_at: row.updated_at,
    is_2fa_enabled: false,
    has_social_auth: false,
    last_login: null,
  };
}

/** The organization the path names, if the caller belongs to it; outsiders get 404, as if it did not exist. */
function callerOrganization(store: SandboxStore, caller: ApiCaller, id: string): string | undefined {
  const rows = store.db.prepare('SELECT organization_id FROM organization_memberships WHERE user_id = ? ORDER BY joined_at, id').all(caller.userId) as Array<{ organization_id: string }>;
  const ids = rows.map((r) => r.organization_id);
  return id === '@current' ? ids[0] : ids.find((o) => o === id);
}

function listOrganizationMembers(request: SandboxRequest, store: SandboxStore, caller: ApiCaller, id: string): SandboxResponse {
  const organization = callerOrganization(store, caller, id);
  if (organization === undefined) return notFound();
  const { limit, offset } = limitOffset(request.url);
  const members = organizationMembers(store, organization);
  return json(200, offsetPage(request, members.slice(offset, offset + limit).map(memberJson), members.length, limit, offset));
}

export const organizationRoutes: Route[] = [
  callerRoute('GET', /^\/api\/organizations\/([^/]+)\/members\/?$/, 'organization_member:read', (request, { store, caller, params }) =>
    listOrganizationMembers(request, store, caller, params[0] ?? ''),
  ),
];
