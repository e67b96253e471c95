/**
 * `/api/projects/:id/insight_variables/`, as PostHog's InsightVariableViewSet: variables named by
 * uuid, a `code_name` made from the name on create (letters, digits and `_` kept, spaces as `_`,
 * lower case) and unique in the project, pages of 500 by page number.
 */
import { randomUUID } from 'node:crypto';
import type { Route } from '../../router.js';
import { json } from '../../router.js';
import { projectRoute, type ApiContext } from '../api-auth.js';
import { notFound, validationError } from '../api-errors.js';
import { isRecord } from './config-kind.js';
import { ConfigStore, type ConfigRow } from './config-store.js';

const PREFIX = String.raw`^\/api\/(?:projects|environments)\/(\d+)\/insight_variables\/`;
const WRITABLE = ['name', 'type', 'default_value', 'values'];

function storeOf(context: ApiContext): ConfigStore {
  return new ConfigStore(context.store, context.project.id, context.now);
}

function render(row: ConfigRow): Record<string, unknown> {
  const { uuid, ...body } = row.body;
  return { ...body, id: uuid, created_at: row.createdAt, created_by: null, values: body.values ?? null, default_value: body.default_value ?? null };
}

function codeName(name: string): string {
  return [...name]
    .filter((c) => /[\p{L}\p{N} _]/u.test(c))
    .join('')
    .replaceAll(' ', '_')
    .toLowerCase();
}

function picked(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(WRITABLE.filter((field) => body[field] !== undefined).map((field) => [field, body[field]]));
}

async function bodyOf(request: Parameters<Parameters<typeof projectRoute>[3]>[0]): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = JSON.parse((await request.body()).toString('utf8') || '{}');
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function byUuid(store: ConfigStore, uuid: string): ConfigRow | undefined {
  return store.list('insight_variables').find((row) => row.body.uuid === uuid);
}

export function insightVariableRoutes(): Route[] {
  const list = new RegExp(`${PREFIX}?$`);
  const one = new RegExp(`${PREFIX}([0-9a-f-]{36})\\/?$`);
  return [
    projectRoute('GET', list, 'insight_variable:read', (_request, context) => {
      const rows = storeOf(context).list('insight_variables');
      return json(200, { count: rows.length, next: null, previous: null, results: rows.map(render) });
    }),
    projectRoute('GET', one, 'insight_variable:read', (_request, context) => {
      const row = byUuid(storeOf(context), context.params[0]!);
      return row === undefined ? notFound() : json(200, render(row));
    }),
    projectRoute('POST', list, 'insight_variable:write', async (request, context) => {
      const body = await bodyOf(request);
      if (body === undefined) return validationError('parse_error', 'JSON parse error', null);
      if (typeof body.name !== 'string' || body.name === '') return validationError('required', 'This field is required.', 'name');
      if (typeof body.type !== 'string') return validationError('required', 'This field is required.', 'type');
      const store = storeOf(context);
      const code = codeName(body.name);
      if (store.list('insight_variables').some((row) => row.body.code_name === code)) return validationError('invalid_input', 'Variable with this code name already exists', null);
      return json(201, render(store.insert('insight_variables', { ...picked(body), code_name: code, uuid: randomUUID() })));
    }),
    projectRoute('PATCH', one, 'insight_variable:write', async (request, context) => {
      const store = storeOf(context);
      const row = byUuid(store, context.params[0]!);
      if (row === undefined) return notFound();
      const body = await bodyOf(request);
      if (body === undefined) return validationError('parse_error', 'JSON parse error', null);
      return json(200, render(store.update(row, { ...row.body, ...picked(body) })));
    }),
  ];
}
