/**
 * `/api/projects/:id/exports/` (and under `/api/environments/`): list, create, retrieve, and
 * fetch the rendered content. As today's PostHog: create renders before it answers (as slow
 * as `renderMs`), an insight or dashboard export also needs that object's read scope, video
 * and GIF need a session recording, and each user sees only the exports they created.
 */
import { EXPORT_FORMATS, type ExportFormat } from '../../posthog/lists.js';
import type { Route, SandboxRequest, SandboxResponse } from '../router.js';
import { json } from '../router.js';
import { hasScope, projectRoute, type ApiContext } from './api-auth.js';
import { readJsonObject } from './api-body.js';
import { apiError, missingScope, notFound, required, validationError } from './api-errors.js';
import { limitOffset, offsetPage } from './api-pagination.js';
import { exportFilename } from './export-naming.js';
import { renderExportNow, reportNotReady } from './export-scheduler.js';
import { exportContent, exportJson, getExport, insertExport, listExports } from './export-store.js';
import { renderSpec, SANDBOX_DASHBOARDS, SANDBOX_INSIGHTS } from './sandbox-insights.js';
import { systemClock } from '../../util/clock.js';

const BASE = String.raw`^\/api\/(?:projects|environments)\/(\d+)\/exports`;
const LIST = new RegExp(`${BASE}\\/?$`);
const ONE = new RegExp(`${BASE}\\/(\\d+)\\/?$`);
const CONTENT = new RegExp(`${BASE}\\/(\\d+)\\/content\\/?$`);
/** How long the service keeps an exported file. */
const EXPIRES_AFTER_DAYS = 180;
/** Formats the service renders from session recordings only. */
const RECORDING_FORMATS: readonly string[] = ['video/mp4', 'video/webm', 'image/gif'];

export interface ExportRouteOptions {
  /** How long rendering one export takes while the create request waits, in ms. Default 0. */
  renderMs?: number;
  /** Older self-hosted PostHog: content answers 404 until rendered, instead of 425. Default false. */
  content404UntilReady?: boolean;
  /** Waits out `renderMs`. Default a real timer; tests inject one. */
  sleep?: (ms: number) => Promise<void>;
}

interface ValidExport {
  dashboard: number | null;
  insight: number | null;
  format: ExportFormat;
  context: Record<string, unknown> | null;
}

function primaryKey(body: Record<string, unknown>, attr: 'dashboard' | 'insight', known: ReadonlyArray<{ id: number }>): number | null | SandboxResponse {
  const value = body[attr];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return validationError('incorrect_type', `Incorrect type. Expected pk value, received ${typeof value}.`, attr);
  }
  if (!known.some((k) => k.id === value)) return validationError('does_not_exist', `Invalid pk "${value}" - object does not exist.`, attr);
  return value;
}

/** The serializer's choice field: one of the model's formats, exactly as written. */
function isFormatChoice(value: unknown): value is ExportFormat {
  return typeof value === 'string' && Object.hasOwn(EXPORT_FORMATS, value);
}

/** Field checks in the serializer's field order, then the rule that one source is needed. */
export function validateExport(body: Record<string, unknown>): ValidExport | SandboxResponse {
  const dashboard = primaryKey(body, 'dashboard', SANDBOX_DASHBOARDS);
  if (typeof dashboard === 'object' && dashboard !== null) return dashboard;
  const insight = primaryKey(body, 'insight', SANDBOX_INSIGHTS);
  if (typeof insight === 'object' && insight !== null) return insight;
  const format = body.export_format;
  if (format === undefined || format === null) return required('export_format');
  if (!isFormatChoice(format)) return validationError('invalid_choice', `"${String(format)}" is not a valid choice.`, 'export_format');
  const context = body.export_context ?? null;
  if (context !== null && (typeof context !== 'object' || Array.isArray(context))) {
    return validationError('invalid_input', 'Value must be valid JSON object.', 'export_context');
  }
  if (dashboard === null && insight === null && context === null) {
    return validationError('invalid_input', 'Either dashboard, insight or export_context is required for an export.', null);
  }
  return { dashboard, insight, format, context: context as Record<string, unknown> | null };
}

/** An insight or dashboard export reads that object, so the key needs its read scope too. */
export function sourceScopeRefusal(body: Record<string, unknown>, scopes: readonly string[]): SandboxResponse | undefined {
  for (const [field, scope] of [
    ['dashboard', 'dashboard:read'],
    ['insight', 'insight:read'],
  ] as const) {
    if (body[field] !== undefined && body[field] !== null && !hasScope(scopes, scope)) return missingScope(scope);
  }
  return undefined;
}

function recordingRefusal(valid: ValidExport): SandboxResponse | undefined {
  if (!RECORDING_FORMATS.includes(valid.format) || typeof valid.context?.session_recording_id === 'string') return undefined;
  return validationError('invalid_input', 'Video export supports session recordings only.', 'export_format');
}

async function createExport(request: SandboxRequest, context: ApiContext, options: ExportRouteOptions): Promise<SandboxResponse> {
  const body = await readJsonObject(request);
  if (!body.ok) return body.response;
  const refusal = sourceScopeRefusal(body.value, context.caller.scopes);
  if (refusal !== undefined) return refusal;
  const valid = validateExport(body.value);
  if ('status' in valid) return valid;
  const recording = recordingRefusal(valid);
  if (recording !== undefined) return recording;
  const now = context.now();
  const id = insertExport(context.store, {
    team_id: context.project.id,
    dashboard: valid.dashboard,
    insight: valid.insight,
    export_format: valid.format,
    export_context: valid.context === null ? null : JSON.stringify(valid.context),
    created_by: context.caller.userId,
    created_at: now.toISOString(),
    filename: exportFilename(renderSpec(valid).title, now, valid.format),
    expires_after: new Date(now.getTime() + EXPIRES_AFTER_DAYS * 86_400_000).toISOString(),
  });
  const renderMs = options.renderMs ?? 0;
  if (renderMs > 0) await (options.sleep ?? ((ms: number) => systemClock.sleep(ms)))(renderMs);
  if (!context.store.db.open) return { status: 0, drop: true };
  // Paused (tests): the export stays unrendered until resumed, like a render that outlasted the request.
  renderExportNow(context.store, id);
  return json(201, exportJson(getExport(context.store, context.project.id, id, context.caller.userId)!));
}

function content(request: SandboxRequest, { store, project, params, caller }: ApiContext, options: ExportRouteOptions): SandboxResponse {
  const row = getExport(store, project.id, Number(params[0]), caller.userId);
  if (row === undefined) return notFound();
  if (row.exception !== null) return apiError(400, 'validation_error', 'export_failed', row.exception);
  const bytes = row.has_content === 1 ? exportContent(store, row.id) : null;
  if (bytes === null) {
    reportNotReady(store, row.id);
    return options.content404UntilReady ? notFound() : apiError(425, 'invalid_request', 'export_not_ready', 'Export is not ready yet.');
  }
  const headers: Record<string, string> = { 'content-type': row.export_format };
  if (request.url.searchParams.get('download') === 'true') headers['content-disposition'] = `attachment; filename="${row.filename}"`;
  return { status: 200, headers, body: bytes };
}

export function exportsRoutes(options: ExportRouteOptions = {}): Route[] {
  return [
    projectRoute('GET', LIST, 'export:read', (request, { store, project, caller }) => {
      const { limit, offset } = limitOffset(request.url);
      const { rows, count } = listExports(store, project.id, caller.userId, limit, offset);
      return json(200, offsetPage(request, rows.map(exportJson), count, limit, offset));
    }),
    projectRoute('POST', LIST, 'export:write', (request, context) => createExport(request, context, options)),
    projectRoute('GET', ONE, 'export:read', (_request, { store, project, params, caller }) => {
      const row = getExport(store, project.id, Number(params[0]), caller.userId);
      return row === undefined ? notFound() : json(200, exportJson(row));
    }),
    projectRoute('GET', CONTENT, 'export:read', (request, context) => content(request, context, options)),
  ];
}
