/** Refusals `members` makes itself, the same on both APIs. */
import { RemoteError } from '../../errors.js';

/** An organization admin or owner enters every project through the organization: no project grant changes that. */
export function organizationAccessError(uuid: string, projectId: string, organizationLevel: string, doing: string): RemoteError {
  return new RemoteError(`user ${uuid} enters project ${projectId} as an organization ${organizationLevel}; that access comes from the organization, and ${doing} does not change it`);
}
