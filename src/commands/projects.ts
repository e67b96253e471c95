/** `migrate projects list`: the projects the personal API key can see. */
import type { Command } from 'commander';
import { table } from '../cli/format.js';
import { managementOptions, withManagementApi, type ManagementOptions } from '../cli/management-options.js';
import { print, printJson } from '../cli/output.js';

async function list(options: ManagementOptions): Promise<void> {
  await withManagementApi(options, async (api) => {
    const projects = await api.listProjects();
    if (options.json) return printJson(projects);
    if (projects.length === 0) return print('The key sees no projects.');
    print(table([['id', 'name', 'organization', 'timezone'], ...projects.map((p) => [String(p.id), p.name, p.organization, p.timezone ?? ''])]));
  });
}

export function registerProjects(program: Command): void {
  const projects = program.command('projects').description('projects on the PostHog instance (management API)');
  managementOptions(projects.command('list').description('list the projects your personal API key can see')).action(list);
}
