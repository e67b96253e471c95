/**
 * `/api/projects/:id/<resource>/` for the configuration objects: list (limit/offset pages,
 * deleted objects left out), read one, create, partial update; no DELETE, as PostHog forbids it
 * for these kinds (an object is deleted by `PATCH {"deleted": true}`). A kind the plan does not
 * include answers 402 on create, as a paywalled feature does.
 */
import type { Route, SandboxRequest, SandboxResponse } from '../../router.js';
import { json } from '../../router.js';
import { projectRoute, type ApiContext } from '../api-auth.js';
import { apiError, notFound, validationError } from '../api-errors.js';
import { limitOffset, offsetPage } from '../api-pagination.js';
import { isRecord, type KindContext, type KindRules } from './config-kind.js';
import { ConfigStore, type ConfigRow } from './config-store.js';
import { dashboardRules, insightRules } from './dashboard-rules.js';
import { flagRules } from './flag-rules.js';
import { insightVariableRoutes } from './insight-variable-routes.js';
import { experimentRules, surveyRules } from './link-rules.js';
import { actionRules, annotationRules, cohortRules } from './simple-kinds.js';
import { addStaticMembers, cohortPersons, personsByDistinctId } from './static-cohorts.js';

export const CONFIG_KINDS: readonly KindRules[] = [actionRules, cohortRules, flagRules, insightRules, dashboardRules, annotationRules, experimentRules, surveyRules];

export interface ConfigRouteOptions {
  /** Resources whose create answers 402 (e.g. `experiments`), as on a plan without them. */
  paywalled?: readonly string[];
}

const PREFIX = String.raw`^\/api\/(?:projects|environments)\/(\d+)\/`;

function kindContext(context: ApiContext): KindContext {
  return {
    objects: new ConfigStore(context.store, context.project.id, context.now),
    store: context.store,
    teamId: context.project.id,
    organizationId: context.project.organization_id,
    userId: context.caller.userId,
    level: context.level,
  };
}

function render(rules: KindRules, row: ConfigRow, context: KindContext, detail: boolean): Record<string, unknown> {
  return rules.render?.(row, context, detail) ?? { ...row.body, id: row.id };
}

type BodyRead = { body: Record<string, unknown> } | { refusal: SandboxResponse };

async function readBody(request: SandboxRequest): Promise<BodyRead> {
  try {
    const value: unknown = JSON.parse((await request.body()).toString('utf8') || '{}');
    return isRecord(value) ? { body: value } : { refusal: validationError('parse_error', 'Expected a JSON object.', null) };
  } catch {
    return { refusal: apiError(400, 'invalid_request', 'parse_error', 'JSON parse error') };
  }
}

/** A stored row, or the refusal a kind's side effect answered (rows have a kind, answers a status). */
function isResponse(value: ConfigRow | SandboxResponse): value is SandboxResponse {
  return !('kind' in value);
}

/** Splits a request body into what is stored and what the kind consumes; read-only fields are dropped. */
function splitBody(rules: KindRules, body: Record<string, unknown>): { stored: Record<string, unknown>; written: Record<string, unknown> } {
  const stored: Record<string, unknown> = {};
  const written: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (rules.writeOnly?.includes(field)) written[field] = value;
    else if (!rules.readOnly.includes(field)) stored[field] = value;
  }
  return { stored, written };
}

function write(rules: KindRules, context: KindContext, body: Record<string, unknown>, existing: ConfigRow | undefined): SandboxResponse {
  const { stored, written } = splitBody(rules, body);
  const merged = existing === undefined ? stored : { ...existing.body, ...stored };
  const refusal = rules.validate?.(merged, context, existing?.id);
  if (refusal !== undefined) return refusal;
  return context.store.transaction(() => {
    const row = existing === undefined ? context.objects.insert(rules.kind, merged) : context.objects.update(existing, merged);
    const applied = rules.apply?.(row, written, context, existing === undefined, body) ?? row;
    if (isResponse(applied)) throw new RefusedWrite(applied);
    return json(existing === undefined ? 201 : 200, render(rules, context.objects.get(rules.kind, row.id)!, context, true));
  });
}

/** Rolls back a write whose side effects were refused. */
class RefusedWrite extends Error {
  constructor(readonly response: SandboxResponse) {
    super('refused');
  }
}

function guarded(work: () => SandboxResponse): SandboxResponse {
  try {
    return work();
  } catch (error) {
    if (error instanceof RefusedWrite) return error.response;
    throw error;
  }
}

function kindRoutes(rules: KindRules, options: ConfigRouteOptions): Route[] {
  const list = new RegExp(`${PREFIX}${rules.resource}\\/?$`);
  const one = new RegExp(`${PREFIX}${rules.resource}\\/(\\d+)\\/?$`);
  const read = `${rules.scope}:read`;
  const writeScope = `${rules.scope}:write`;
  const visible = (k: KindContext): ConfigRow[] => {
    const rows = k.objects.list(rules.kind);
    return rules.alsoVisible === undefined ? rows : [...rows, ...rules.alsoVisible(k)].sort((a, b) => a.id - b.id);
  };
  const find = (context: ApiContext, k: KindContext): ConfigRow | undefined => {
    const id = Number(context.params[0]);
    return k.objects.get(rules.kind, id) ?? rules.alsoVisible?.(k).find((row) => row.id === id);
  };
  return [
    projectRoute('GET', list, read, (request, context) => {
      const k = kindContext(context);
      const rows = visible(k);
      const { limit, offset } = limitOffset(request.url);
      return json(
        200,
        offsetPage(
          request,
          rows.slice(offset, offset + limit).map((row) => render(rules, row, k, false)),
          rows.length,
          limit,
          offset,
        ),
      );
    }),
    projectRoute('GET', one, read, (_request, context) => {
      const k = kindContext(context);
      const row = find(context, k);
      return row === undefined ? notFound() : json(200, render(rules, row, k, true));
    }),
    projectRoute('POST', list, writeScope, async (request, context) => {
      if (options.paywalled?.includes(rules.resource))
        return apiError(402, 'server_error', 'payment_required', `This feature is part of the premium PostHog offering. Upgrade your plan to use ${rules.resource}.`);
      const read = await readBody(request);
      return 'refusal' in read ? read.refusal : guarded(() => write(rules, kindContext(context), read.body, undefined));
    }),
    projectRoute('PATCH', one, writeScope, async (request, context) => {
      const k = kindContext(context);
      const row = find(context, k);
      if (row === undefined) return notFound();
      const forbidden = rules.mayEdit?.(row, k);
      if (forbidden !== undefined) return forbidden;
      const read = await readBody(request);
      return 'refusal' in read ? read.refusal : guarded(() => write(rules, k, read.body, row));
    }),
    projectRoute('DELETE', one, writeScope, () => apiError(405, 'invalid_request', 'method_not_allowed', 'Method "DELETE" not allowed.')),
  ];
}

const cohortExtras: Route[] = [
  projectRoute('GET', new RegExp(`${PREFIX}cohorts\\/(\\d+)\\/persons\\/?$`), 'cohort:read', (request, context) => cohortPersons(request, kindContext(context), Number(context.params[0]))),
  projectRoute('PATCH', new RegExp(`${PREFIX}cohorts\\/(\\d+)\\/add_persons_to_static_cohort\\/?$`), 'cohort:write', async (request, context) => {
    const k = kindContext(context);
    const cohort = k.objects.get('cohorts', Number(context.params[0]));
    if (cohort === undefined) return notFound();
    if (cohort.body.is_static !== true) return validationError('invalid_input', 'Can only add persons to a static cohort', null);
    const read = await readBody(request);
    if ('refusal' in read) return read.refusal;
    const added = addStaticMembers(k, cohort.id, Array.isArray(read.body.person_ids) ? read.body.person_ids : []);
    return typeof added === 'number' ? json(200, { success: true }) : added;
  }),
  projectRoute('GET', new RegExp(`${PREFIX}persons\\/?$`), 'person:read', (request, context) => personsByDistinctId(request, kindContext(context))),
];

export function configRoutes(options: ConfigRouteOptions = {}): Route[] {
  // The cohort extras come first: their paths would otherwise read as a cohort id.
  return [...cohortExtras, ...insightVariableRoutes(), ...CONFIG_KINDS.flatMap((rules) => kindRoutes(rules, options))];
}
