/** `migrate projects list`: the projects the personal API key can see. */
import type { Command } from 'commander';
import { managementOptions, withManagementApi, type ManagementOptions } from '../../options/management-options.js';
import { presentProjects } from './projects-output.js';

export function registerProjects(program: Command): void {
  const projects = program.command('projects').description('projects on the PostHog instance (management API)');
  managementOptions(projects.command('list').description('list the projects your personal API key can see')).action(async (options: ManagementOptions) =>
    presentProjects(await withManagementApi(options, (api) => api.listProjects()), options.json === true),
  );
}
