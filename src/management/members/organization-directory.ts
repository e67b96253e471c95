/**
 * The people of the project's organization, read once per run: their names for `members`
 * output, and the organization membership id access control takes. The organization is the
 * project's own (`GET /api/projects/:id/`), or the key's current one when the key may not
 * read the project.
 */
import { AuthError } from '../../errors.js';
import type { ManagementClient } from '../management-client.js';
import { projectSchema } from '../management-schemas.js';
import { collectAll } from '../pagination.js';
import type { ProjectScope } from '../project-scope.js';
import { organizationMembersPageSchema, type OrganizationMember } from './members-schemas.js';

/** What a key needs for access control, said with every refusal of these calls. */
export const ACCESS_CONTROL_SCOPES_HINT =
  'This PostHog manages project members through access control: the key needs access_control:read to read them, access_control:write to change them, and organization_member:read to look people up.';

export class OrganizationDirectory {
  private people: Promise<OrganizationMember[]> | undefined;

  constructor(
    private readonly client: ManagementClient,
    private readonly project: ProjectScope,
  ) {}

  private async organizationId(): Promise<string> {
    try {
      return (await this.project.json({ method: 'GET', resource: '', what: `project ${this.client.target.projectId}` }, projectSchema)).organization;
    } catch (error) {
      // A key without project:read can still name its own organization.
      if (error instanceof AuthError) return '@current';
      throw error;
    }
  }

  /** Every membership of the organization (read once). */
  all(): Promise<OrganizationMember[]> {
    this.people ??= (async () => {
      const id = await this.organizationId();
      const first = { method: 'GET' as const, path: `/api/organizations/${id === '@current' ? id : encodeURIComponent(id)}/members/`, what: 'the organization' };
      return collectAll(this.client, { schema: organizationMembersPageSchema, first: () => this.client.json(first, organizationMembersPageSchema) });
    })();
    return this.people;
  }

  async find(userUuid: string): Promise<OrganizationMember | undefined> {
    return (await this.all()).find((m) => m.user.uuid.toLowerCase() === userUuid);
  }
}
