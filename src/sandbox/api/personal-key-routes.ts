/**
 * `GET /api/personal_api_keys/@current/`: the key that made the request, with its scopes, as
 * today's PostHog answers a personal key reading itself (no scope needed; the value is never
 * sent back). Older PostHog wanted `personal_api_key:read` for it; `needsScope` imitates that.
 */
import type { Route } from '../router.js';
import { json } from '../router.js';
import { callerRoute } from './api-auth.js';

interface KeyRow {
  id: string;
  user_id: number;
  label: string;
  value: string;
  scopes: string;
  created_at: string;
}

function mask(value: string): string {
  return `${value.slice(0, 4)}...${value.slice(-4)}`;
}

export function personalKeyRoutes(needsScope: boolean): Route[] {
  return [
    callerRoute('GET', /^\/api\/personal_api_keys\/@current\/?$/, needsScope ? 'personal_api_key:read' : null, (_request, { store, caller }) => {
      const row = store.db.prepare('SELECT id, user_id, label, value, scopes, created_at FROM personal_api_keys WHERE id = ?').get(caller.keyId) as KeyRow;
      const scopes = JSON.parse(row.scopes) as string[];
      return json(200, {
        id: row.id,
        label: row.label,
        value: null,
        mask_value: mask(row.value),
        created_at: row.created_at,
        last_used_at: null,
        user_id: row.user_id,
        scopes: scopes.length === 0 ? ['*'] : scopes,
        scoped_teams: [],
        scoped_organizations: [],
        last_rolled_at: null,
      });
    }),
  ];
}
