/** What `projects list` prints: the projects as a table, or JSON. */
import type { Project } from '../../../management/management-schemas.js';
import { print, printJson } from '../../terminal/output.js';
import { table } from '../../terminal/table.js';

export function presentProjects(projects: Project[], json: boolean): void {
  if (json) return printJson(projects);
  if (projects.length === 0) return print('The key sees no projects.');
  print(table([['id', 'name', 'organization', 'timezone'], ...projects.map((p) => [String(p.id), p.name, p.organization, p.timezone ?? ''])]));
}
