/**
 * The endpoints the commands use, one method each, over the management client. Project
 * resources go through the project scope (canonical `/api/projects/:id/`, else
 * `/api/environments/:id/`); members through whichever members API the instance has.
 */
import { RemoteError } from '../errors.js';
import { retryAfterMs } from '../http/server-answer.js';
import { describeStorageError } from './api-error-message.js';
import { hostOf } from './api-url.js';
import type { ExportFormat } from './export-formats.js';
import { isNoAnswer, type ApiCall, type ApiNoAnswer, type ApiReply, type ManagementClient } from './management-client.js';
import {
  exportSchema,
  exportsPageSchema,
  groupSchema,
  groupsPageSchema,
  groupTypesSchema,
  projectSchema,
  projectsPageSchema,
  type Export,
  type ExportsPage,
  type Group,
  type GroupsPage,
  type GroupType,
  type Project,
} from './management-schemas.js';
import { ProjectMembers } from './members/project-members.js';
import { collectAll } from './pagination.js';
import { projectCommand } from './project-command.js';
import { ProjectScope, type ProjectCall } from './project-scope.js';

export interface ExportRequest {
  export_format: ExportFormat;
  dashboard?: number;
  insight?: number;
  export_context?: Record<string, unknown>;
}

export type ExportContent = { ready: true; bytes: Buffer; contentType: string; filename?: string } | { ready: false; retryAfterMs?: number };

export interface GroupQuery {
  groupTypeIndex: number;
  search?: string;
}

/** Said with a 404 of an export: PostHog shows each user only the exports they created. */
export const EXPORT_VISIBILITY_HINT = "Exports are visible only to the user who created them: a colleague's export answers 404 to your key.";
const EXPORT_HINTS = { 404: [EXPORT_VISIBILITY_HINT] };

function groupsQuery(q: GroupQuery): Record<string, string | number | undefined> {
  return { group_type_index: q.groupTypeIndex, search: q.search };
}

function filenameFromDisposition(header: string | undefined): string | undefined {
  return header === undefined ? undefined : /filename="?([^";]+)"?/.exec(header)?.[1];
}

const REDIRECTS: readonly number[] = [301, 302, 303, 307, 308];

export class ManagementApi {
  /** Project resources under the prefix this instance answers (detected on the first call). */
  readonly project: ProjectScope;
  readonly members: ProjectMembers;

  constructor(readonly client: ManagementClient) {
    this.project = new ProjectScope(client);
    this.members = new ProjectMembers(client, this.project);
  }

  listProjects(): Promise<Project[]> {
    const first: ApiCall = { method: 'GET', path: '/api/projects/' };
    return collectAll(this.client, { schema: projectsPageSchema, first: () => this.client.json(first, projectsPageSchema) });
  }

  /** The configured project (`/api/projects/:id/`). */
  getProject(): Promise<Project> {
    return this.project.json({ method: 'GET', resource: '', what: `project ${this.client.target.projectId}` }, projectSchema);
  }

  listGroupTypes(): Promise<GroupType[]> {
    return this.project.json({ method: 'GET', resource: 'groups_types/' }, groupTypesSchema);
  }

  listExports(page: { limit?: number; offset?: number }): Promise<ExportsPage> {
    return this.project.json({ method: 'GET', resource: 'exports/', query: page }, exportsPageSchema);
  }

  listAllExports(): Promise<Export[]> {
    return collectAll(this.client, { schema: exportsPageSchema, first: () => this.listExports({}) });
  }

  /** Creates an export, bounded by `timeoutMs` (PostHog renders before it answers); no answer in time is a value. */
  async createExport(request: ExportRequest, options: { timeoutMs?: number; hints?: ProjectCall['hints'] } = {}): Promise<{ type: 'created'; export: Export } | ApiNoAnswer> {
    const { reply, call } = await this.project.trySend({ method: 'POST', resource: 'exports/', body: request, timeoutMs: options.timeoutMs, hints: options.hints });
    if (isNoAnswer(reply)) return reply;
    return { type: 'created', export: this.client.parse(reply, call, exportSchema) };
  }

  getExport(id: number): Promise<Export> {
    return this.project.json({ method: 'GET', resource: `exports/${id}/`, what: `export ${id}`, hints: EXPORT_HINTS }, exportSchema);
  }

  /** The rendered bytes, or "not ready"; a redirect to storage is followed without the key. */
  async exportContent(id: number): Promise<ExportContent> {
    const what = `export ${id}`;
    const { reply, call } = await this.project.send({ method: 'GET', resource: `exports/${id}/content/`, query: { download: 'true' }, what, hints: EXPORT_HINTS });
    if (REDIRECTS.includes(reply.status)) return this.storageContent(reply, id);
    // 425 today; older servers answered 409 with Retry-After.
    if (reply.status === 425 || reply.status === 409) return { ready: false, retryAfterMs: retryAfterMs(reply.headers, '', this.client.clock.now()) };
    if (reply.status !== 200) throw this.client.failure(reply, call);
    return this.content(reply);
  }

  private async storageContent(redirect: ApiReply, id: number): Promise<ExportContent> {
    const location = redirect.headers.location;
    if (location === undefined || location === '') {
      throw new RemoteError(`${hostOf(redirect.url)} redirected the download of export ${id} (${redirect.status}) without a Location`);
    }
    const reply = await this.client.fetchUnauthenticated(location, redirect.url);
    if (reply.status !== 200)
      throw new RemoteError(describeStorageError(reply.status, hostOf(reply.url), `export ${id}`), [`Run the download again: ${projectCommand(`exports download ${id}`, this.client.target)}`]);
    return this.content(reply);
  }

  private content(reply: ApiReply): ExportContent {
    const contentType = reply.headers['content-type'] ?? 'application/octet-stream';
    return { ready: true, bytes: reply.body, contentType, filename: filenameFromDisposition(reply.headers['content-disposition']) };
  }

  listGroups(q: GroupQuery): Promise<GroupsPage> {
    return this.project.json({ method: 'GET', resource: 'groups/', query: groupsQuery(q) }, groupsPageSchema);
  }

  listAllGroups(q: GroupQuery): Promise<Group[]> {
    return collectAll(this.client, { schema: groupsPageSchema, first: () => this.listGroups(q) });
  }

  /** One group. PostHog makes a notebook for the group on a find unless told not to: this read never writes. */
  findGroup(groupTypeIndex: number, key: string): Promise<Group> {
    const query = { group_type_index: groupTypeIndex, group_key: key, skip_create_notebook: 'true' };
    return this.project.json({ method: 'GET', resource: 'groups/find/', query, what: `group "${key}" of type ${groupTypeIndex}` }, groupSchema);
  }
}

export function managementApi(client: ManagementClient): ManagementApi {
  return new ManagementApi(client);
}
