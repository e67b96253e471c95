/**
 * `migrate members` over whichever API the instance has: the explicit-members API where it is
 * still served (older PostHog), access control otherwise (today's Cloud answers explicit
 * members with 404 "Endpoint not found."). Detected once per run, by one request; every
 * result says which API answered.
 */
import { isEndpointMissing } from '../api-detection.js';
import type { ManagementClient } from '../management-client.js';
import type { ProjectScope } from '../project-scope.js';
import { AccessControlMembers } from './access-control-members.js';
import { ExplicitMembers } from './explicit-members.js';
import type { ProjectLevel } from './member-levels.js';
import type { MemberList, MembersBackend } from './members-backend.js';
import { OrganizationDirectory } from './organization-directory.js';
import type { MembersApi, ProjectMember } from './project-member.js';

export interface MemberAnswer {
  api: MembersApi;
  member: ProjectMember;
}

export class ProjectMembers {
  private backend: Promise<MembersBackend> | undefined;
  private readonly organization: OrganizationDirectory;

  constructor(
    private readonly client: ManagementClient,
    private readonly project: ProjectScope,
  ) {
    this.organization = new OrganizationDirectory(client, project);
  }

  /** The API this instance manages members with (asked once; the explicit members' list is kept for `list`). */
  detect(): Promise<MembersBackend> {
    this.backend ??= (async () => {
      const probe = await this.project.send({ method: 'GET', resource: 'explicit_members/', what: 'explicit members' });
      if (isEndpointMissing(probe.reply.status, probe.reply.body.toString('utf8'))) return new AccessControlMembers(this.client, this.project, this.organization);
      return new ExplicitMembers(this.client, this.project, this.organization, probe);
    })();
    return this.backend;
  }

  async list(): Promise<MemberList & { api: MembersApi }> {
    const backend = await this.detect();
    return { api: backend.api, ...(await backend.list()) };
  }

  async get(userUuid: string): Promise<MemberAnswer> {
    const backend = await this.detect();
    return { api: backend.api, member: await backend.get(userUuid) };
  }

  async add(userUuid: string, level: ProjectLevel): Promise<MemberAnswer> {
    const backend = await this.detect();
    return { api: backend.api, member: await backend.add(userUuid, level) };
  }

  async update(userUuid: string, level: ProjectLevel): Promise<MemberAnswer> {
    const backend = await this.detect();
    return { api: backend.api, member: await backend.update(userUuid, level) };
  }

  async remove(userUuid: string): Promise<{ api: MembersApi }> {
    const backend = await this.detect();
    await backend.remove(userUuid);
    return { api: backend.api };
  }
}
