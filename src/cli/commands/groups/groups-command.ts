/** `migrate groups list|find`: the groups of one type (companies, teams...) in the project. */
import type { Command } from 'commander';
import { managementOptions, withManagementApi, type ManagementOptions } from '../../options/management-options.js';
import { parseGroupTypeIndex } from './group-args.js';
import { presentAllGroups, presentGroup, presentGroupsPage } from './groups-output.js';

interface GroupOptions extends ManagementOptions {
  groupTypeIndex: number;
}

async function list(options: GroupOptions & { search?: string; all?: boolean }): Promise<void> {
  const query = { groupTypeIndex: options.groupTypeIndex, search: options.search };
  const json = options.json === true;
  if (options.all) presentAllGroups(await withManagementApi(options, (api) => api.listAllGroups(query)), json);
  else presentGroupsPage(await withManagementApi(options, (api) => api.listGroups(query)), json);
}

async function find(options: GroupOptions & { key: string }): Promise<void> {
  presentGroup(await withManagementApi(options, (api) => api.findGroup(options.groupTypeIndex, options.key)), options.json === true);
}

export function registerGroups(program: Command): void {
  const groups = program.command('groups').description('groups of a project (management API)');
  const typeIndex = (command: Command) => command.requiredOption('--group-type-index <n>', 'which group type (see `migrate group-types list`)', parseGroupTypeIndex);
  managementOptions(
    typeIndex(groups.command('list').description('list groups of one type, newest first (100 unless --all)'))
      .option('--search <text>', 'groups whose key is this, or whose properties contain it')
      .option('--all', 'every page'),
  ).action(list);
  managementOptions(
    typeIndex(groups.command('find').description("show one group by its key (read-only: PostHog is told not to create the group's notebook)")).requiredOption('--key <key>', 'the group key'),
  ).action(find);
}
