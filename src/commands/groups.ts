/** `migrate groups list|find`: the groups of one type (companies, teams...) in the project. */
import type { Command } from 'commander';
import { table } from '../cli/format.js';
import { parseGroupTypeIndex } from '../cli/management-args.js';
import { managementOptions, withManagementApi, type ManagementOptions } from '../cli/management-options.js';
import { print, printJson } from '../cli/output.js';
import type { Group } from '../management/management-schemas.js';

interface GroupOptions extends ManagementOptions {
  groupTypeIndex: number;
}

function compact(properties: Record<string, unknown>, maxChars = 70): string {
  const text = JSON.stringify(properties);
  return text.length > maxChars ? `${text.slice(0, maxChars - 3)}...` : text;
}

function printGroups(groups: Group[]): void {
  if (groups.length === 0) return print('No groups found.');
  print(table([['key', 'created', 'properties'], ...groups.map((g) => [g.group_key, g.created_at, compact(g.group_properties)])]));
}

async function list(options: GroupOptions & { search?: string; all?: boolean }): Promise<void> {
  const query = { groupTypeIndex: options.groupTypeIndex, search: options.search };
  await withManagementApi(options, async (api) => {
    if (options.all) {
      const all = await api.listAllGroups(query);
      return options.json ? printJson(all) : printGroups(all);
    }
    const page = await api.listGroups(query);
    if (options.json) return printJson(page);
    printGroups(page.results);
    if (page.next !== null) print(`\nShowing the newest ${page.results.length}; pass --all for every group.`);
  });
}

async function find(options: GroupOptions & { key: string }): Promise<void> {
  await withManagementApi(options, async (api) => {
    const group = await api.findGroup(options.groupTypeIndex, options.key);
    if (options.json) return printJson(group);
    print(table([['key', group.group_key], ['type index', String(group.group_type_index)], ['created', group.created_at]]));
    print('properties:');
    print(JSON.stringify(group.group_properties, null, 2));
  });
}

export function registerGroups(program: Command): void {
  const groups = program.command('groups').description('groups of a project (management API)');
  const typeIndex = (command: Command) =>
    command.requiredOption('--group-type-index <n>', 'which group type (see `migrate group-types list`)', parseGroupTypeIndex);
  managementOptions(
    typeIndex(groups.command('list').description('list groups of one type, newest first (100 unless --all)'))
      .option('--search <text>', 'groups whose key is this, or whose properties contain it')
      .option('--all', 'every page'),
  ).action(list);
  managementOptions(typeIndex(groups.command('find').description('show one group by its key')).requiredOption('--key <key>', 'the group key')).action(find);
}
