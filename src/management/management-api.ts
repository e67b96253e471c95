/**
 * The endpoints the commands use, one function each, over the management client. Project
 * resources live under `/api/environments/:id/`; the project list and group types under
 * `/api/projects/`.
 */
import { RemoteError } from '../errors.js';
import { retryAfterMs } from './api-error-message.js';
import type { ExportFormat } from './export-formats.js';
import type { ManagementClient } from './management-client.js';
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

function filenameFromDisposition(header: string | undefined): string | undefined {
  return header === undefined ? undefined : /filename="?([^";]+)"?/.exec(header)?.[1];
}

export function managementApi(client: ManagementClient) {
  const env = `/api/environments/${client.target.projectId}`;
  const member = (uuid: string) => ({ path: `${env}/explicit_members/${encodeURIComponent(uuid)}/`, what: `member ${uuid}` });
  const exportPath = (id: number) => ({ path: `${env}/exports/${id}/`, what: `export ${id}` });
  const groupsQuery = (q: GroupQuery) => ({ group_type_index: q.groupTypeIndex, search: q.search });

  return {
    listProjects: (): Promise<Project[]> => collectAll(client, { method: 'GET', path: '/api/projects/' }, projectsPageSchema),
    listGroupTypes: (): Promise<GroupType[]> =>
      client.json({ method: 'GET', path: `/api/projects/${client.target.projectId}/groups_types/` }, groupTypesSchema),

    getMember: (uuid: string): Promise<Member> => client.json({ method: 'GET', ...member(uuid) }, memberSchema),
    updateMember: (uuid: string, level: number): Promise<Member> => client.json({ method: 'PATCH', ...member(uuid), body: { level } }, memberSchema),
    removeMember: (uuid: string): Promise<void> => client.empty({ method: 'DELETE', ...member(uuid) }),

    listExports: (page: { limit?: number; offset?: number }): Promise<ExportsPage> =>
      client.json({ method: 'GET', path: `${env}/exports/`, query: page }, exportsPageSchema),
    listAllExports: (): Promise<Export[]> => collectAll(client, { method: 'GET', path: `${env}/exports/` }, exportsPageSchema),
    createExport: (request: ExportRequest): Promise<Export> => client.json({ method: 'POST', path: `${env}/exports/`, body: request }, exportSchema),
    getExport: (id: number): Promise<Export> => client.json({ method: 'GET', ...exportPath(id) }, exportSchema),
    async exportContent(id: number): Promise<ExportContent> {
      const call = { method: 'GET' as const, path: `${env}/exports/${id}/content/`, query: { download: 'true' }, what: `export ${id}` };
      let reply = await client.send(call);
      if ([301, 302, 303, 307, 308].includes(reply.status)) {
        const location = reply.headers.location;
        if (location === undefined) throw new RemoteError(`export ${id}: the API redirected without a location`);
        reply = await client.fetchUnauthenticated(location, reply.url);
      }
      // 425 today; older servers answered 409 with Retry-After.
      if (reply.status === 425 || reply.status === 409) {
        return { ready: false, retryAfterMs: retryAfterMs(reply.headers, '', Date.now()) };
      }
      if (reply.status !== 200) throw client.failure(reply, call);
      const contentType = reply.headers['content-type'] ?? 'application/octet-stream';
      return { ready: true, bytes: reply.body, contentType, filename: filenameFromDisposition(reply.headers['content-disposition']) };
    },

    listGroups: (q: GroupQuery): Promise<GroupsPage> =>
      client.json({ method: 'GET', path: `${env}/groups/`, query: groupsQuery(q) }, groupsPageSchema),
    listAllGroups: (q: GroupQuery): Promise<Group[]> => collectAll(client, { method: 'GET', path: `${env}/groups/`, query: groupsQuery(q) }, groupsPageSchema),
    findGroup: (groupTypeIndex: number, key: string): Promise<Group> =>
      client.json({ method: 'GET', path: `${env}/groups/find/`, query: { group_type_index: groupTypeIndex, group_key: key }, what: `group "${key}" of type ${groupTypeIndex}` }, groupSchema),
  };
}

export type ManagementApi = ReturnType<typeof managementApi>;
