/**
 * `GET /api/billing/`: the organization's billing overview as PostHog answers a personal key
 * (scope `billing:read`, and billing access: the organization's owner). The sandbox counts the
 * events its projects received this calendar month (UTC) as the period's usage; the events
 * limit is none unless the sandbox is started with one, or over quota (then it is reached).
 */
import type { Route } from '../router.js';
import { json } from '../router.js';
import type { SandboxStore } from '../sandbox-store.js';
import { callerRoute, type ApiCaller } from './api-auth.js';
import { permissionDenied } from './api-errors.js';

const OWNER_LEVEL = 15;
export const NO_BILLING_ACCESS = 'You do not have billing access in this organization. Ask its owner.';

function callerOrganization(store: SandboxStore, caller: ApiCaller): { organization_id: string; level: number } | undefined {
  return store.db.prepare('SELECT organization_id, level FROM organization_memberships WHERE user_id = ? ORDER BY joined_at, id LIMIT 1').get(caller.userId) as
    | { organization_id: string; level: number }
    | undefined;
}

function periodOf(now: Date): { start: string; end: string } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start: start.toISOString(), end: end.toISOString() };
}

function eventsUsage(store: SandboxStore, organizationId: string, period: { start: string; end: string }): number {
  const row = store.db
    .prepare('SELECT count(*) AS n FROM events WHERE received_at >= ? AND received_at < ? AND team_id IN (SELECT id FROM projects WHERE organization_id = ?)')
    .get(period.start, period.end, organizationId) as { n: number };
  return row.n;
}

/** The limit billing answers: reached when capture is over quota, else the one configured (null for none). */
function limitOf(usage: number, eventsLimit: number | undefined, overQuota: boolean): number | null {
  if (overQuota) return Math.min(eventsLimit ?? usage, usage);
  return eventsLimit ?? null;
}

/** `eventsLimit`: the organization's billing limit on events per period; undefined for none. */
export function billingRoutes(eventsLimit: number | undefined, overQuota: boolean): Route[] {
  return [
    callerRoute('GET', /^\/api\/billing\/?$/, 'billing:read', (_request, { store, caller, now }) => {
      const membership = callerOrganization(store, caller);
      if (membership === undefined || membership.level < OWNER_LEVEL) return permissionDenied(NO_BILLING_ACCESS);
      const period = periodOf(now());
      const usage = eventsUsage(store, membership.organization_id, period);
      const limit = limitOf(usage, eventsLimit, overQuota);
      return json(200, {
        customer_id: null,
        has_active_subscription: limit !== null,
        billing_period: { current_period_start: period.start, current_period_end: period.end, interval: 'month' },
        usage_summary: { events: { usage, limit } },
        products: [],
        custom_limits_usd: {},
      });
    }),
  ];
}
