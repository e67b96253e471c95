/**
 * Test and production must be two PostHog projects: a rehearsal sent into production cannot
 * be deleted. Pure; `migrate doctor` and import's rules share it.
 */

export interface ProjectIdentity {
  name: string;
  role: 'test' | 'production';
  /** Ingestion host. */
  host: string;
  apiKey?: string;
  projectId?: string;
}

/**
 * Why a test project and a production project are the same PostHog project (one project key,
 * or the same project id on the same host), or undefined when nothing says so. Projects of the
 * same role are not compared.
 */
export function sharedProjectProblem(a: ProjectIdentity, b: ProjectIdentity): string | undefined {
  if (a.role === b.role) return undefined;
  const pair = `projects "${a.name}" (${a.role}) and "${b.name}" (${b.role})`;
  if (a.apiKey !== undefined && a.apiKey === b.apiKey) return `${pair} have the same project API key: they are one PostHog project`;
  if (a.projectId !== undefined && a.projectId === b.projectId && a.host === b.host) {
    return `${pair} are both project ${a.projectId} on ${a.host}: one PostHog project`;
  }
  return undefined;
}
