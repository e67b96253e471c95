/**
 * `/api/environments/:id/groups/`: the groups of one type, newest first, 100 per cursor page,
 * optionally searched; and `groups/find/` for one group by key, which also makes the group's
 * notebook unless `skip_create_notebook` is true, as PostHog does.
 */
import type { Route, SandboxRequest, SandboxResponse } from '../router.js';
import { json } from '../router.js';
import type { SandboxStore } from '../sandbox-store.js';
import { projectRoute, type ApiContext } from './api-auth.js';
import { notFound, required, validationError } from './api-errors.js';
import { cursorLinks, decodeCursor, DEFAULT_PAGE_SIZE } from './api-pagination.js';
import { ensureGroupNotebook, groupNotebook } from './notebook-store.js';

const BASE = String.raw`^\/api\/(?:projects|environments)\/(\d+)\/groups`;

interface GroupRow {
  group_type_index: number;
  group_key: string;
  group_properties: string;
  created_at: string;
}

function groupJson(row: GroupRow): Record<string, unknown> {
  return {
    group_type_index: row.group_type_index,
    group_key: row.group_key,
    group_properties: JSON.parse(row.group_properties) as unknown,
    created_at: row.created_at,
  };
}

/** A required integer query parameter, or the service's 400 naming it. */
export function integerParam(url: URL, name: string): number | SandboxResponse {
  const text = url.searchParams.get(name);
  if (text === null || text === '') return required(name);
  if (!/^\d+$/.test(text)) return validationError('invalid_input', 'A valid integer is required.', name);
  return Number(text);
}

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function pageOfGroups(store: SandboxStore, teamId: number, typeIndex: number, search: string | null, offset: number): GroupRow[] {
  const where = search === null ? '' : `AND (group_key = @search OR group_properties LIKE @pattern ESCAPE '\\')`;
  return store.db
    .prepare(
      `SELECT group_type_index, group_key, group_properties, created_at FROM groups
       WHERE team_id = @teamId AND group_type_index = @typeIndex ${where}
       ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
    )
    .all({ teamId, typeIndex, limit: DEFAULT_PAGE_SIZE + 1, offset, ...(search === null ? {} : { search, pattern: likePattern(search) }) }) as GroupRow[];
}

function listGroups(request: SandboxRequest, { store, project }: ApiContext): SandboxResponse {
  const typeIndex = integerParam(request.url, 'group_type_index');
  if (typeof typeIndex !== 'number') return typeIndex;
  const offset = decodeCursor(request.url.searchParams.get('cursor'));
  if (offset === undefined) return notFound('Invalid cursor');
  const search = request.url.searchParams.get('search') || null;
  const rows = pageOfGroups(store, project.id, typeIndex, search, offset);
  const links = cursorLinks(request, offset, DEFAULT_PAGE_SIZE, rows.length > DEFAULT_PAGE_SIZE);
  return json(200, { ...links, results: rows.slice(0, DEFAULT_PAGE_SIZE).map(groupJson) });
}

/** PostHog's `str_to_bool`: a few spellings of yes. */
export function queryFlag(value: string | null): boolean {
  return value !== null && ['y', 'yes', 't', 'true', 'on', '1'].includes(value.trim().toLowerCase());
}

function notebookFor(request: SandboxRequest, { store, project, caller, now }: ApiContext, row: GroupRow): string | null {
  if (queryFlag(request.url.searchParams.get('skip_create_notebook'))) {
    return groupNotebook(store, project.id, row.group_type_index, row.group_key)?.short_id ?? null;
  }
  const name = (JSON.parse(row.group_properties) as Record<string, unknown>).name;
  const title = `${typeof name === 'string' && name !== '' ? name : row.group_key} Notes`;
  const at = now().toISOString();
  return ensureGroupNotebook(store, { team_id: project.id, title, group_type_index: row.group_type_index, group_key: row.group_key, created_by: caller.userId, created_at: at }).short_id;
}

function findGroup(request: SandboxRequest, context: ApiContext): SandboxResponse {
  const { store, project } = context;
  const typeIndex = integerParam(request.url, 'group_type_index');
  if (typeof typeIndex !== 'number') return typeIndex;
  const key = request.url.searchParams.get('group_key');
  if (key === null || key === '') return required('group_key');
  const row = store.db
    .prepare('SELECT group_type_index, group_key, group_properties, created_at FROM groups WHERE team_id = ? AND group_type_index = ? AND group_key = ?')
    .get(project.id, typeIndex, key) as GroupRow | undefined;
  return row === undefined ? notFound() : json(200, { ...groupJson(row), notebook: notebookFor(request, context, row) });
}

export const groupsRoutes: Route[] = [projectRoute('GET', new RegExp(`${BASE}\\/find\\/?$`), 'group:read', findGroup), projectRoute('GET', new RegExp(`${BASE}\\/?$`), 'group:read', listGroups)];
