/**
 * Which API an instance serves, read from its answers. PostHog routes a path before it looks
 * at credentials, so a 404 "Endpoint not found." means the instance has no such endpoint
 * (Cloud retired explicit members; old instances lack the `/api/projects/:id/` resources),
 * while "Not found." means the endpoint exists and the object does not. Pure.
 */
import { ENDPOINT_NOT_FOUND, parseErrorBody } from './api-error-message.js';

/** The two prefixes of project resources: canonical today, and the one kept for older clients. */
export type ProjectPrefix = 'projects' | 'environments';

/** Does this answer say the endpoint does not exist here (not merely the object)? */
export function isEndpointMissing(status: number, body: string): boolean {
  if (status !== 404) return false;
  const parsed = parseErrorBody(body);
  // A 404 that is not the API's error shape came from a router or a proxy in front, not from an object lookup.
  return parsed === undefined || parsed.detail === ENDPOINT_NOT_FOUND;
}

/** The prefixes to try, in order: the one the instance answered before, else the canonical one first. */
export function prefixOrder(known: ProjectPrefix | undefined): readonly [ProjectPrefix, ProjectPrefix] {
  return known === 'environments' ? ['environments', 'projects'] : ['projects', 'environments'];
}

/** The path of a project resource under a prefix; `resource` is relative (`exports/12/`, or '' for the project). */
export function projectPath(prefix: ProjectPrefix, projectId: string, resource: string): string {
  return `/api/${prefix}/${encodeURIComponent(projectId)}/${resource.replace(/^\/+/, '')}`;
}
