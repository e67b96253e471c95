/**
 * Doctor's reads of the management API, through the management client: each answers a value
 * or the failure (status, the API's detail, the scope it says is missing), never throws for an
 * HTTP status. Nothing here writes.
 */
import type { z } from 'zod';
import { serverMessage } from '../../http/server-answer.js';
import { parseErrorBody } from '../../management/api-error-message.js';
import type { ApiCall, ManagementClient } from '../../management/management-client.js';
import { collectAll } from '../../management/pagination.js';
import type { DayCount } from '../../staging/staged-facts.js';
import type { ApiProject } from '../doctor-facts.js';
import { billingSchema, currentKeySchema, dayCountsSchema, projectsWithTokenPageSchema, projectWithTokenSchema } from '../doctor-schemas.js';
import { missingScopeIn } from '../scopes.js';

export type ApiRead<T> = { type: 'ok'; value: T } | { type: 'error'; status: number; message: string; missingScope?: string };

/** Rows of days a query may answer (PostHog caps HogQL results at 50,000). */
const MAX_DAYS = 50_000;
const DAY_MS = 86_400_000;

export async function apiRead<S extends z.ZodType>(client: ManagementClient, call: ApiCall, schema: S): Promise<ApiRead<z.infer<S>>> {
  let reply;
  try {
    reply = await client.send(call);
  } catch (error) {
    return { type: 'error', status: 0, message: (error as Error).message };
  }
  if (reply.status < 200 || reply.status >= 300) {
    const detail = parseErrorBody(reply.body.toString('utf8'))?.detail ?? serverMessage(reply.body);
    const missingScope = reply.status === 403 ? missingScopeIn(detail) : undefined;
    return { type: 'error', status: reply.status, message: detail, ...(missingScope !== undefined ? { missingScope } : {}) };
  }
  let json: unknown;
  try {
    json = JSON.parse(reply.body.toString('utf8'));
  } catch {
    return { type: 'error', status: reply.status, message: 'the answer is not JSON' };
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { type: 'ok', value: parsed.data } : { type: 'error', status: reply.status, message: 'the answer has an unexpected shape' };
}

function toProject(p: z.infer<typeof projectWithTokenSchema>): ApiProject {
  return { id: p.id, name: p.name, apiToken: p.api_token };
}

export async function readProject(client: ManagementClient, projectId: string): Promise<ApiRead<ApiProject>> {
  const read = await apiRead(client, { method: 'GET', path: `/api/projects/${encodeURIComponent(projectId)}/` }, projectWithTokenSchema);
  return read.type === 'ok' ? { type: 'ok', value: toProject(read.value) } : read;
}

/** Every project the key can see, or undefined when it cannot list them. */
export async function listProjects(client: ManagementClient): Promise<ApiProject[] | undefined> {
  try {
    const first = () => client.json({ method: 'GET', path: '/api/projects/' }, projectsWithTokenPageSchema);
    return (await collectAll(client, { schema: projectsWithTokenPageSchema, first })).map(toProject);
  } catch {
    return undefined;
  }
}

export async function readCurrentKey(client: ManagementClient): Promise<ApiRead<{ scopes: string[]; scopedTeams: number[] }>> {
  const read = await apiRead(client, { method: 'GET', path: '/api/personal_api_keys/@current/' }, currentKeySchema);
  if (read.type !== 'ok') return read;
  return { type: 'ok', value: { scopes: read.value.scopes.length === 0 ? ['*'] : read.value.scopes, scopedTeams: read.value.scoped_teams ?? [] } };
}

function dayText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The project's events per day from the first staged day to the last, with one HogQL query. */
export async function countEventsPerDay(client: ManagementClient, projectId: string, staged: readonly DayCount[]): Promise<ApiRead<DayCount[]>> {
  const from = staged[0]!.day;
  const until = dayText(Date.parse(staged.at(-1)!.day) + DAY_MS);
  const query =
    `SELECT toDate(timestamp) AS day, count() AS events FROM events ` + `WHERE timestamp >= '${from} 00:00:00' AND timestamp < '${until} 00:00:00' GROUP BY day ORDER BY day LIMIT ${MAX_DAYS}`;
  const read = await apiRead(
    client,
    { method: 'POST', path: `/api/projects/${encodeURIComponent(projectId)}/query/`, body: { query: { kind: 'HogQLQuery', query }, refresh: 'force_blocking' } },
    dayCountsSchema,
  );
  return read.type === 'ok' ? { type: 'ok', value: read.value.results.map(([day, count]) => ({ day: day.slice(0, 10), count })) } : read;
}

export interface BillingRead {
  eventsUsage: number | null;
  eventsLimit: number | null;
  periodEnd: string | null;
}

export async function readBilling(client: ManagementClient): Promise<ApiRead<BillingRead>> {
  const read = await apiRead(client, { method: 'GET', path: '/api/billing/' }, billingSchema);
  if (read.type !== 'ok') return read;
  const events = read.value.usage_summary?.events;
  return { type: 'ok', value: { eventsUsage: events?.usage ?? null, eventsLimit: events?.limit ?? null, periodEnd: read.value.billing_period?.current_period_end ?? null } };
}

/** Read scopes tried one GET each, when the API does not tell a key its scopes (older PostHog). */
export function scopeProbes(projectId: string): Array<{ scope: string; call: ApiCall }> {
  const project = `/api/projects/${encodeURIComponent(projectId)}`;
  return [
    { scope: 'group:read', call: { method: 'GET', path: `${project}/groups_types/` } },
    { scope: 'export:read', call: { method: 'GET', path: `${project}/exports/`, query: { limit: 1 } } },
    { scope: 'access_control:read', call: { method: 'GET', path: `${project}/access_controls/` } },
    { scope: 'organization_member:read', call: { method: 'GET', path: '/api/organizations/@current/members/', query: { limit: 1 } } },
    { scope: 'insight:read', call: { method: 'GET', path: `${project}/insights/`, query: { limit: 1 } } },
    { scope: 'dashboard:read', call: { method: 'GET', path: `${project}/dashboards/`, query: { limit: 1 } } },
  ];
}
