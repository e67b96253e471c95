/** What `groups list|find` print: groups as a table, one group with its properties, or JSON. */
import type { Group, GroupsPage } from '../../../management/management-schemas.js';
import { print, printJson } from '../../terminal/output.js';
import { table } from '../../terminal/table.js';

function compact(properties: Record<string, unknown>, maxChars = 70): string {
  const text = JSON.stringify(properties);
  return text.length > maxChars ? `${text.slice(0, maxChars - 3)}...` : text;
}

function printGroups(groups: Group[]): void {
  if (groups.length === 0) return print('No groups found.');
  print(table([['key', 'created', 'properties'], ...groups.map((g) => [g.group_key, g.created_at, compact(g.group_properties)])]));
}

/** Every group (--all). */
export function presentAllGroups(groups: Group[], json: boolean): void {
  if (json) printJson(groups);
  else printGroups(groups);
}

/** The newest page, and how to see the rest. */
export function presentGroupsPage(page: GroupsPage, json: boolean): void {
  if (json) return printJson(page);
  printGroups(page.results);
  if (page.next !== null) print(`\nShowing the newest ${page.results.length}; pass --all for every group.`);
}

export function presentGroup(group: Group, json: boolean): void {
  if (json) return printJson(group);
  print(
    table([
      ['key', group.group_key],
      ['type index', String(group.group_type_index)],
      ['created', group.created_at],
    ]),
  );
  print('properties:');
  print(JSON.stringify(group.group_properties, null, 2));
}
