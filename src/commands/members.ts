/** `migrate members get|update|remove <user_uuid>`: a project's explicit members and their level. */
import type { Command } from 'commander';
import { table } from '../cli/format.js';
import { parseMemberLevel, parseUserUuid } from '../cli/management-args.js';
import { managementOptions, withManagementApi, type ManagementOptions } from '../cli/management-options.js';
import { print, printJson } from '../cli/output.js';
import type { Member } from '../management/management-schemas.js';

const LEVEL_NAMES: Readonly<Record<number, string>> = { 1: 'member', 8: 'administrator', 15: 'owner' };

export function levelText(level: number | null | undefined): string {
  if (level === null || level === undefined) return '';
  return `${level} (${LEVEL_NAMES[level] ?? 'custom'})`;
}

function personOf(member: Member): string {
  const name = [member.user.first_name, member.user.last_name].filter(Boolean).join(' ');
  return `${name} <${member.user.email}>`;
}

function printMember(member: Member): void {
  print(
    table([
      ['user', personOf(member)],
      ['uuid', member.user.uuid],
      ['level', levelText(member.level)],
      ['effective level', levelText(member.effective_level)],
      ['organization level', levelText(member.parent_level)],
      ['joined', member.joined_at],
      ['updated', member.updated_at],
    ]),
  );
}

async function get(uuid: string, options: ManagementOptions): Promise<void> {
  await withManagementApi(options, async (api) => {
    const member = await api.getMember(uuid);
    if (options.json) printJson(member);
    else printMember(member);
  });
}

async function update(uuid: string, options: ManagementOptions & { level: 1 | 8 }): Promise<void> {
  await withManagementApi(options, async (api) => {
    const member = await api.updateMember(uuid, options.level);
    if (options.json) return printJson(member);
    print(`${personOf(member)} is now ${levelText(member.level)} in project "${options.project}".`);
  });
}

async function remove(uuid: string, options: ManagementOptions): Promise<void> {
  await withManagementApi(options, async (api) => {
    await api.removeMember(uuid);
    if (options.json) printJson({ removed: true, user_uuid: uuid });
    else print(`Removed member ${uuid} from project "${options.project}".`);
  });
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
