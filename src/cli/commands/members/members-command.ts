/** `migrate members get|update|remove <user_uuid>`: a project's explicit members and their level. */
import type { Command } from 'commander';
import { managementOptions, withManagementApi, type ManagementOptions } from '../../options/management-options.js';
import { parseMemberLevel, parseUserUuid } from './member-args.js';
import { presentMember, presentRemoved, presentUpdated } from './members-output.js';

async function get(uuid: string, options: ManagementOptions): Promise<void> {
  presentMember(await withManagementApi(options, (api) => api.getMember(uuid)), options.json === true);
}

async function update(uuid: string, options: ManagementOptions & { level: 1 | 8 }): Promise<void> {
  presentUpdated(await withManagementApi(options, (api) => api.updateMember(uuid, options.level)), options.project, options.json === true);
}

async function remove(uuid: string, options: ManagementOptions): Promise<void> {
  await withManagementApi(options, (api) => api.removeMember(uuid));
  presentRemoved(uuid, options.project, options.json === true);
}

export function registerMembers(program: Command): void {
  const members = program.command('members').description("a project's explicit members (management API)");
  const uuidArg = (command: Command) => command.argument('<user_uuid>', "the member's user uuid", parseUserUuid);
  managementOptions(uuidArg(members.command('get').description("show a member's level"))).action(get);
  managementOptions(
    uuidArg(members.command('update').description("set a member's level")).requiredOption('--level <1|8>', '1 member, 8 administrator', parseMemberLevel),
  ).action(update);
  managementOptions(uuidArg(members.command('remove').description('remove a member from the project'))).action(remove);
}
