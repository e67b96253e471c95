/** What `members get|update|remove` print: a member's levels, the change made, or JSON. */
import type { Member } from '../../../management/management-schemas.js';
import { print, printJson } from '../../terminal/output.js';
import { table } from '../../terminal/table.js';

const LEVEL_NAMES: Readonly<Record<number, string>> = { 1: 'member', 8: 'administrator', 15: 'owner' };

export function levelText(level: number | null | undefined): string {
  if (level === null || level === undefined) return '';
  return `${level} (${LEVEL_NAMES[level] ?? 'custom'})`;
}

function personOf(member: Member): string {
  const name = [member.user.first_name, member.user.last_name].filter(Boolean).join(' ');
  return `${name} <${member.user.email}>`;
}

export function presentMember(member: Member, json: boolean): void {
  if (json) return printJson(member);
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

export function presentUpdated(member: Member, project: string, json: boolean): void {
  if (json) return printJson(member);
  print(`${personOf(member)} is now ${levelText(member.level)} in project "${project}".`);
}

export function presentRemoved(uuid: string, project: string, json: boolean): void {
  if (json) printJson({ removed: true, user_uuid: uuid });
  else print(`Removed member ${uuid} from project "${project}".`);
}
