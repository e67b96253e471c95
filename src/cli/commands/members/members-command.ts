/**
 * `migrate members list|get|add|update|remove`: who can enter a project and at which level,
 * through the explicit-members API where the instance serves it, access control otherwise.
 */
import type { Command } from 'commander';
import type { ProjectLevel } from '../../../management/members/member-levels.js';
import { managementOptions, withManagementApi, type ManagementOptions } from '../../options/management-options.js';
import { parseMemberLevel, parseUserUuid } from './member-args.js';
import { presentChanged, presentMember, presentMembers, presentRemoved } from './members-output.js';

type LevelOptions = ManagementOptions & { level: ProjectLevel };

async function list(options: ManagementOptions): Promise<void> {
  presentMembers(await withManagementApi(options, (api) => api.members.list()), options.json === true);
}

async function get(uuid: string, options: ManagementOptions): Promise<void> {
  presentMember(await withManagementApi(options, (api) => api.members.get(uuid)), options.json === true);
}

async function add(uuid: string, options: LevelOptions): Promise<void> {
  presentChanged(await withManagementApi(options, (api) => api.members.add(uuid, options.level)), 'added', options.project, options.json === true);
}

async function update(uuid: string, options: LevelOptions): Promise<void> {
  presentChanged(await withManagementApi(options, (api) => api.members.update(uuid, options.level)), 'updated', options.project, options.json === true);
}

async function remove(uuid: string, options: ManagementOptions): Promise<void> {
  const { api } = await withManagementApi(options, (managed) => managed.members.remove(uuid));
  presentRemoved(uuid, api, options.project, options.json === true);
}

const SCOPES = `
Scopes: with the explicit-members API (older PostHog), project:read to read and project:write to
change. With access control (PostHog Cloud today), access_control:read to read,
access_control:write to change, and organization_member:read to look people up.`;

export function registerMembers(program: Command): void {
  const members = program.command('members').description('who can enter a project, and at which level (management API: explicit members, or access control)').addHelpText('after', SCOPES);
  const uuidArg = (command: Command) => command.argument('<user_uuid>', "the user's uuid", parseUserUuid);
  managementOptions(members.command('list').description('list everyone with access to the project, and how they have it')).action(list);
  managementOptions(uuidArg(members.command('get').description("show a user's access to the project"))).action(get);
  managementOptions(uuidArg(members.command('add').description('give an organization member access to the project')).option('--level <1|8>', '1 member, 8 administrator', parseMemberLevel, 1)).action(
    add,
  );
  managementOptions(uuidArg(members.command('update').description("set a member's level")).requiredOption('--level <1|8>', '1 member, 8 administrator', parseMemberLevel)).action(update);
  managementOptions(uuidArg(members.command('remove').description("remove a member's access to the project"))).action(remove);
}
