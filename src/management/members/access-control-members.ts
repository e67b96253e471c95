/**
 * Members through access control, as today's PostHog Cloud manages them:
 * `users_with_access/` says who can enter the project and how, and `PUT access_controls/`
 * grants, changes (`member`, `admin`) or removes (null) one organization member's access.
 * Names come from the organization's list; changes are read back from the server.
 */
import { AuthError, RemoteError } from '../../errors.js';
import type { ManagementClient } from '../management-client.js';
import { projectCommand } from '../project-command.js';
import type { ProjectScope } from '../project-scope.js';
import { shellWord } from '../../util/shell-word.js';
import { accessLevelFor, levelName, type ProjectLevel } from './member-levels.js';
import { organizationAccessError } from './members-errors.js';
import type { MemberList, MembersBackend } from './members-backend.js';
import { usersWithAccessSchema, type OrganizationMember, type UserAccess } from './members-schemas.js';
import { ACCESS_CONTROL_SCOPES_HINT, type OrganizationDirectory } from './organization-directory.js';
import { fromUserAccess, type ProjectMember } from './project-member.js';

const HINTS = { 403: [ACCESS_CONTROL_SCOPES_HINT] };
export const NO_NAMES_NOTE = 'Names are not shown: the key cannot read the organization (organization_member:read).';

export class AccessControlMembers implements MembersBackend {
  readonly api = 'access_control' as const;

  constructor(
    private readonly client: ManagementClient,
    private readonly project: ProjectScope,
    private readonly organization: OrganizationDirectory,
  ) {}

  private get projectId(): string {
    return this.client.target.projectId;
  }

  private async access(): Promise<UserAccess[]> {
    return (await this.project.json({ method: 'GET', resource: 'users_with_access/', hints: HINTS }, usersWithAccessSchema)).users;
  }

  private async entry(uuid: string): Promise<UserAccess | undefined> {
    return (await this.access()).find((a) => a.user_id.toLowerCase() === uuid);
  }

  /** The organization's people, or undefined when the key may not read them (names are then left out). */
  private async people(): Promise<OrganizationMember[] | undefined> {
    try {
      return await this.organization.all();
    } catch (error) {
      if (error instanceof AuthError) return undefined;
      throw error;
    }
  }

  async list(): Promise<MemberList> {
    const access = await this.access();
    const people = await this.people();
    const byUuid = new Map((people ?? []).map((p) => [p.user.uuid.toLowerCase(), p]));
    return { members: access.map((a) => fromUserAccess(a, byUuid.get(a.user_id.toLowerCase()))), notes: people === undefined ? [NO_NAMES_NOTE] : [] };
  }

  private noAccess(uuid: string): RemoteError {
    return new RemoteError(`user ${uuid} has no access to project ${this.projectId}`, [`Give it with: ${projectCommand(`members add ${shellWord(uuid)} --level 1`, this.client.target)}`]);
  }

  private organizationAccess(uuid: string, entry: UserAccess, doing: string): RemoteError {
    return organizationAccessError(uuid, this.projectId, entry.organization_membership_level ?? 'admin', doing);
  }

  async get(uuid: string): Promise<ProjectMember> {
    const entry = await this.entry(uuid);
    if (entry === undefined) throw this.noAccess(uuid);
    const people = await this.people();
    return fromUserAccess(
      entry,
      people?.find((p) => p.user.uuid.toLowerCase() === uuid),
    );
  }

  private async put(membershipId: string, level: ProjectLevel | null, what: string): Promise<void> {
    const body = { organization_member: membershipId, access_level: level === null ? null : accessLevelFor(level) };
    await this.project.empty({ method: 'PUT', resource: 'access_controls/', body, what, hints: HINTS });
  }

  async add(uuid: string, level: ProjectLevel): Promise<ProjectMember> {
    const entry = await this.entry(uuid);
    if (entry?.access_source === 'organization_admin') throw this.organizationAccess(uuid, entry, 'adding them');
    if (entry !== undefined) {
      throw new RemoteError(`user ${uuid} is already a member of project ${this.projectId} (${entry.access_level})`, [
        `Change the level with: ${projectCommand(`members update ${shellWord(uuid)} --level <1|8>`, this.client.target)}`,
      ]);
    }
    const person = await this.organization.find(uuid);
    if (person === undefined) throw new RemoteError(`user ${uuid} is not in the project's organization`, ['Invite them to the organization in PostHog first.']);
    await this.put(person.id, level, `access of user ${uuid}`);
    return this.get(uuid);
  }

  private async membershipOf(uuid: string, doing: string): Promise<string> {
    const entry = await this.entry(uuid);
    if (entry === undefined) throw this.noAccess(uuid);
    if (entry.access_source === 'organization_admin') throw this.organizationAccess(uuid, entry, doing);
    const id = entry.organization_membership_id ?? (await this.organization.find(uuid))?.id;
    if (id === undefined) throw new RemoteError(`user ${uuid} has no organization membership id in the API's answer`);
    return id;
  }

  async update(uuid: string, level: ProjectLevel): Promise<ProjectMember> {
    await this.put(await this.membershipOf(uuid, `setting ${level} (${levelName(level)})`), level, `access of user ${uuid}`);
    return this.get(uuid);
  }

  async remove(uuid: string): Promise<void> {
    await this.put(await this.membershipOf(uuid, 'removing them'), null, `access of user ${uuid}`);
  }
}
