/** What `members list|get|add|update|remove` print: members and their access, the change made, or JSON; and which API answered. */
import { levelName } from '../../../management/members/member-levels.js';
import type { MembersApi, ProjectMember } from '../../../management/members/project-member.js';
import { print, printJson, warn } from '../../terminal/output.js';
import { table } from '../../terminal/table.js';

const API_NOTES: Record<MembersApi, string> = {
  explicit_members: 'Members API: explicit members.',
  access_control: 'Members API: access control (this PostHog has no explicit-members endpoint).',
};

const SOURCES: Readonly<Record<string, string>> = {
  explicit_member: 'project member',
  project_admin: 'project admin',
  organization_admin: 'organization admin or owner',
};

export function levelText(level: number | null | undefined): string {
  if (level === null || level === undefined) return '';
  return `${level} (${levelName(level)})`;
}

function grantText(m: ProjectMember): string {
  return m.level === null ? `none (access through ${SOURCES[m.access_source] ?? m.access_source})` : levelText(m.level);
}

function personOf(m: ProjectMember): string {
  const name = [m.user.first_name, m.user.last_name].filter(Boolean).join(' ');
  if (m.user.email == null) return name || m.user.uuid;
  return name === '' ? `<${m.user.email}>` : `${name} <${m.user.email}>`;
}

function sayApi(api: MembersApi, json: boolean): void {
  if (!json) warn(API_NOTES[api]);
}

export function presentMembers(result: { api: MembersApi; members: ProjectMember[]; notes: string[] }, json: boolean): void {
  for (const note of result.notes) warn(note);
  if (json) return printJson({ api: result.api, members: result.members });
  sayApi(result.api, json);
  if (result.members.length === 0) return print('Nobody has access to the project.');
  const rows = result.members.map((m) => [m.user.uuid, personOf(m), m.level === null ? 'none' : levelText(m.level), levelText(m.effective_level), SOURCES[m.access_source] ?? m.access_source]);
  print(table([['uuid', 'user', 'level', 'effective level', 'access through'], ...rows]));
}

export function presentMember(answer: { api: MembersApi; member: ProjectMember }, json: boolean): void {
  const m = answer.member;
  if (json) return printJson({ api: answer.api, ...m });
  sayApi(answer.api, json);
  const rows = [
    ['user', personOf(m)],
    ['uuid', m.user.uuid],
    ['level', grantText(m)],
    ['effective level', levelText(m.effective_level)],
    ['organization level', levelText(m.parent_level)],
    ['access', `${m.access_level}, as ${SOURCES[m.access_source] ?? m.access_source}`],
  ];
  if (m.joined_at) rows.push(['joined', m.joined_at]);
  if (m.updated_at) rows.push(['updated', m.updated_at]);
  print(table(rows));
}

export function presentChanged(answer: { api: MembersApi; member: ProjectMember }, verb: 'added' | 'updated', project: string, json: boolean): void {
  if (json) return printJson({ api: answer.api, ...answer.member });
  sayApi(answer.api, json);
  const now = levelText(answer.member.level ?? answer.member.effective_level);
  print(verb === 'added' ? `Added ${personOf(answer.member)} to project "${project}" as ${now}.` : `${personOf(answer.member)} is now ${now} in project "${project}".`);
}

export function presentRemoved(uuid: string, api: MembersApi, project: string, json: boolean): void {
  if (json) return printJson({ removed: true, user_uuid: uuid, api });
  sayApi(api, json);
  print(`Removed member ${uuid} from project "${project}".`);
}
