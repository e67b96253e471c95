/** The endpoints the commands use, one method each, over the management client. */
import { RemoteError } from '../errors.js';
import { retryAfterMs } from '../http/server-answer.js';
import type { ExportFormat } from './export-formats.js';
import type { ApiCall, ManagementClient } from './management-client.js';
import {
  exportSchema,
  exportsPageSchema,
  groupSchema,
  groupsPageSchema,
  groupTypesSchema,
  memberSchema,
  projectsPageSchema,
  type Export,
  type ExportsPage,
  type Group,
  type GroupsPage,
  type GroupType,
  type Member,
  type Project,
} from './management-schemas.js';
import { collectAll } from './pagination.js';

export interface ExportRequest {
  export_format: ExportFormat;
  dashboard?: number;
  insight?: number;
  export_context?: Record<string, unknown>;
}

export type ExportContent =
  | { ready: true; bytes: Buffer; contentType: string; filename?: string }
  | { ready: false; retryAfterMs?: number };

export interface GroupQuery {
  groupTypeIndex: number;
  search?: string;
}

function groupsQuery(q: GroupQuery): Record<string, string | number | undefined> {
  return { group_type_index: q.groupTypeIndex, search: q.search };
}

function filenameFromDisposition(header: string | undefined): string | undefined {
  return header === undefined ? undefined : /filename="?([^";]+)"?/.exec(header)?.[1];
}

/** Project resources live under `/api/environments/:id/`; projects and group types under `/api/projects/`. */
export class ManagementApi {
  private readonly env: string;

  constructor(private readonly client: ManagementClient) {
    this.env = `/api/environments/${client.target.projectId}`;
  }

  listProjects(): Promise<Project[]> {
    return collectAll(this.client, { method: 'GET', path: '/api/projects/' }, projectsPageSchema);
  }

  listGroupTypes(): Promise<GroupType[]> {
    return this.client.json({ method: 'GET', path: `/api/projects/${this.client.target.projectId}/groups_types/` }, groupTypesSchema);
  }

  private member(uuid: string): Pick<ApiCall, 'path' | 'what'> {
    return { path: `${this.env}/explicit_members/${encodeURIComponent(uuid)}/`, what: `member ${uuid}` };
  }

  getMember(uuid: string): Promise<Member> {
    return this.client.json({ method: 'GET', ...this.member(uuid) }, memberSchema);
  }

  updateMember(uuid: string, level: number): Promise<Member> {
    return this.client.json({ method: 'PATCH', ...this.member(uuid), body: { level } }, memberSchema);
  }

  removeMember(uuid: string): Promise<void> {
    return this.client.empty({ method: 'DELETE', ...this.member(uuid) });
  }

  listExports(page: { limit?: number; offset?: number }): Promise<ExportsPage> {
    return this.client.json({ method: 'GET', path: `${this.env}/exports/`, query: page }, exportsPageSchema);
  }

  listAllExports(): Promise<Export[]> {
    return collectAll(this.client, { method: 'GET', path: `${this.env}/exports/` }, exportsPageSchema);
  }

  createExport(request: ExportRequest): Promise<Export> {
    return this.client.json({ method: 'POST', path: `${this.env}/exports/`, body: request }, exportSchema);
  }

  getExport(id: number): Promise<Export> {
    return this.client.json({ method: 'GET', path: `${this.env}/exports/${id}/`, what: `export ${id}` }, exportSchema);
  }

  /** The rendered bytes, or "not ready"; a redirect to storage is followed without the key. */
  async exportContent(id: number): Promise<ExportContent> {
    const call: ApiCall = { method: 'GET', path: `${this.env}/exports/${id}/content/`, query: { download: 'true' }, what: `export ${id}` };
    let reply = await this.client.send(call);
    if ([301, 302, 303, 307, 308].includes(reply.status)) {
      const location = reply.headers.location;
      if (location === undefined) throw new RemoteError(`export ${id}: the API redirected without a location`);
      reply = await this.client.fetchUnauthenticated(location, reply.url);
    }
    // 425 today; older servers answered 409 with Retry-After.
    if (reply.status === 425 || reply.status === 409) return { ready: false, retryAfterMs: retryAfterMs(reply.headers, '', this.client.clock.now()) };
    if (reply.status !== 200) throw this.client.failure(reply, call);
    const contentType = reply.headers['content-type'] ?? 'application/octet-stream';
    return { ready: true, bytes: reply.body, contentType, filename: filenameFromDisposition(reply.headers['content-disposition']) };
  }

  listGroups(q: GroupQuery): Promise<GroupsPage> {
    return this.client.json({ method: 'GET', path: `${this.env}/groups/`, query: groupsQuery(q) }, groupsPageSchema);
  }

  listAllGroups(q: GroupQuery): Promise<Group[]> {
    return collectAll(this.client, { method: 'GET', path: `${this.env}/groups/`, query: groupsQuery(q) }, groupsPageSchema);
  }

  findGroup(groupTypeIndex: number, key: string): Promise<Group> {
    const query = { group_type_index: groupTypeIndex, group_key: key };
    return this.client.json({ method: 'GET', path: `${this.env}/groups/find/`, query, what: `group "${key}" of type ${groupTypeIndex}` }, groupSchema);
  }
}

export function managementApi(client: ManagementClient): ManagementApi {
  return new ManagementApi(client);
}
