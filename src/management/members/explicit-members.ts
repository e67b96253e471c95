/**
 * Members through the explicit-members API (`explicit_members/`), which older PostHog serves.
 * Organization admins and owners enter every project without a membership: that API does not
 * list them and answers 404 for them, so they are added from the organization's list.
 */
import { AuthError } from '../../errors.js';
import type { ProjectCall, ProjectScope } from '../project-scope.js';
import type { ApiCall, ApiReply, ManagementClient } from '../management-client.js';
import { ADMIN_LEVEL, levelName, organizationLevelName, type ProjectLevel } from './member-levels.js';
import { organizationAccessError } from './members-errors.js';
import { explicitMemberSchema, explicitMembersSchema, type ExplicitMember } from './members-schemas.js';
import type { OrganizationDirectory } from './organization-directory.js';
import { fromExplicitMember, fromOrganizationAdmin, type ProjectMember } from './project-member.js';
import type { MemberList, MembersBackend } from './members-backend.js';

const UNKNOWN_ORGANIZATION_NOTE = 'An organization admin or owner enters the project without a membership; the key cannot read the organization (organization_member:read) to tell.';

export const NOT_LISTED_NOTE = 'Organization admins and owners, who enter the project without a membership, are not listed: the key cannot read the organization (organization_member:read).';

export class ExplicitMembers implements MembersBackend {
  readonly api = 'explicit_members' as const;

  constructor(
    private readonly client: ManagementClient,
    private readonly project: ProjectScope,
    private readonly organization: OrganizationDirectory,
    /** The answer of the detection request (`GET explicit_members/`), reused by `list`. */
    private readonly probe: { reply: ApiReply; call: ApiCall },
  ) {}

  private one(uuid: string): Pick<ProjectCall, 'resource' | 'what'> {
    return { resource: `explicit_members/${encodeURIComponent(uuid)}/`, what: `member ${uuid}` };
  }

  async list(): Promise<MemberList> {
    const explicit = this.client.parse(this.probe.reply, this.probe.call, explicitMembersSchema).map(fromExplicitMember);
    const listed = new Set(explicit.map((m) => m.user.uuid.toLowerCase()));
    let people;
    try {
      people = await this.organization.all();
    } catch (error) {
      if (error instanceof AuthError) return { members: explicit, notes: [NOT_LISTED_NOTE] };
      throw error;
    }
    const admins = people.filter((p) => p.level >= ADMIN_LEVEL && !listed.has(p.user.uuid.toLowerCase())).map(fromOrganizationAdmin);
    return { members: [...admins.sort((a, b) => b.effective_level - a.effective_level), ...explicit], notes: [] };
  }

  /** A 404 may be an organization admin or owner, who has access without a membership: that is their real access. */
  async get(uuid: string): Promise<ProjectMember> {
    const { reply, call } = await this.project.send({ method: 'GET', ...this.one(uuid) });
    if (reply.status !== 404) return fromExplicitMember(this.client.parse(reply, call, explicitMemberSchema));
    try {
      const person = await this.organization.find(uuid);
      if (person !== undefined && person.level >= ADMIN_LEVEL) return fromOrganizationAdmin(person);
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      throw this.client.failure(reply, { ...call, hints: { 404: [UNKNOWN_ORGANIZATION_NOTE] } });
    }
    throw this.client.failure(reply, call);
  }

  async add(uuid: string, level: ProjectLevel): Promise<ProjectMember> {
    const member: ExplicitMember = await this.project.json({ method: 'POST', resource: 'explicit_members/', body: { user_uuid: uuid, level }, what: `member ${uuid}` }, explicitMemberSchema);
    return fromExplicitMember(member);
  }

  async update(uuid: string, level: ProjectLevel): Promise<ProjectMember> {
    const { reply, call } = await this.project.send({ method: 'PATCH', ...this.one(uuid), body: { level } });
    if (reply.status === 404) await this.refuseOrganizationAdmin(uuid, `setting ${level} (${levelName(level)})`);
    return fromExplicitMember(this.client.parse(reply, call, explicitMemberSchema));
  }

  async remove(uuid: string): Promise<void> {
    const { reply, call } = await this.project.send({ method: 'DELETE', ...this.one(uuid) });
    if (reply.status === 404) await this.refuseOrganizationAdmin(uuid, 'removing them');
    if (reply.status < 200 || reply.status >= 300) throw this.client.failure(reply, call);
  }

  /** After a 404: an organization admin or owner has no membership to change; say so rather than "not found". */
  private async refuseOrganizationAdmin(uuid: string, doing: string): Promise<void> {
    const person = await this.organization.find(uuid).catch(() => undefined);
    if (person !== undefined && person.level >= ADMIN_LEVEL) {
      throw organizationAccessError(uuid, this.client.target.projectId, organizationLevelName(person.level), doing);
    }
  }
}
