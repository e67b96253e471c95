/** `migrate group-types list`: the group types of the project (company, team...) and their indexes. */
import type { Command } from 'commander';
import { managementOptions, withManagementApi, type ManagementOptions } from '../../options/management-options.js';
import { presentGroupTypes } from './group-types-output.js';

export function registerGroupTypes(program: Command): void {
  const groupTypes = program.command('group-types').description('group types of a project (management API)');
  managementOptions(groupTypes.command('list').description('list group types and their indexes (for --group-type-index)')).action(async (options: ManagementOptions) =>
    presentGroupTypes(await withManagementApi(options, (api) => api.listGroupTypes()), options.json === true),
  );
}
