/** `migrate group-types list`: the group types of the project (company, team...) and their indexes. */
import type { Command } from 'commander';
import { table } from '../cli/format.js';
import { managementOptions, withManagementApi, type ManagementOptions } from '../cli/management-options.js';
import { print, printJson } from '../cli/output.js';

async function list(options: ManagementOptions): Promise<void> {
  await withManagementApi(options, async (api) => {
    const types = await api.listGroupTypes();
    if (options.json) return printJson(types);
    if (types.length === 0) return print('No group types yet: they appear once $groupidentify events have been ingested.');
    print(table([['index', 'type', 'singular', 'plural'], ...types.map((t) => [String(t.group_type_index), t.group_type, t.name_singular ?? '', t.name_plural ?? ''])]));
  });
}

export function registerGroupTypes(program: Command): void {
  const groupTypes = program.command('group-types').description('group types of a project (management API)');
  managementOptions(groupTypes.command('list').description('list group types and their indexes (for --group-type-index)')).action(list);
}
