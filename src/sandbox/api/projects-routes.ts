/** `/api/projects/`: the projects a key can see, and each project's group types. */
import type { Route, SandboxRequest } from '../router.js';
import { json } from '../router.js';
import type { SandboxStore } from '../sandbox-store.js';
import { callerRoute, effectiveLevel, projectRoute, type ApiCaller, type ProjectRow } from './api-auth.js';
import { notFound } from './api-errors.js';
import { limitOffset, offsetPage } from './api-pagination.js';

function projectJson(project: ProjectRow): Record<string, unknown> {
  return {
    id: project.id,
    uuid: null,
    organization: project.organization_id,
    api_token: project.api_token,
    name: project.name,
    timezone: project.timezone,
    created_at: project.created_at,
  };
}

function visibleProjects(store: SandboxStore, caller: ApiCaller): ProjectRow[] {
  const all = store.db.prepare('SELECT * FROM projects ORDER BY id').all() as ProjectRow[];
  return all.filter((project) => typeof effectiveLevel(store, caller.userId, project) === 'number');
}

function listProjects(request: SandboxRequest, store: SandboxStore, caller: ApiCaller) {
  const { limit, offset } = limitOffset(request.url);
  const projects = visibleProjects(store, caller);
  return json(200, offsetPage(request, projects.slice(offset, offset + limit).map(projectJson), projects.length, limit, offset));
}

export const projectsRoutes: Route[] = [
  callerRoute('GET', /^\/api\/projects\/?$/, 'project:read', (request, { store, caller }) => listProjects(request, store, caller)),
  callerRoute('GET', /^\/api\/projects\/@current\/?$/, 'project:read', (_request, { store, caller }) => {
    const first = visibleProjects(store, caller)[0];
    return first === undefined ? notFound('Project not found.') : json(200, projectJson(first));
  }),
  projectRoute('GET', /^\/api\/(?:projects|environments)\/(\d+)\/?$/, 'project:read', (_request, { project }) => json(200, projectJson(project))),
  projectRoute('GET', /^\/api\/(?:projects|environments)\/(\d+)\/groups_types\/?$/, 'group:read', (_request, { store, project }) => {
    const rows = store.db.prepare('SELECT group_type, group_type_index, name_singular, name_plural FROM group_types WHERE team_id = ? ORDER BY group_type_index').all(project.id);
    return json(200, rows);
  }),
];
