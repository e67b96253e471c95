/** What `group-types list` prints: the group types and their indexes as a table, or JSON. */
import type { GroupType } from '../../../management/management-schemas.js';
import { print, printJson } from '../../terminal/output.js';
import { table } from '../../terminal/table.js';

export function presentGroupTypes(types: GroupType[], json: boolean): void {
  if (json) return printJson(types);
  if (types.length === 0) return print('No group types yet: they appear once $groupidentify events have been ingested.');
  // PostHog shows the type itself where no display name was set; `-` says none was.
  const name = (text: string | null | undefined): string => (text === undefined || text === null || text.trim() === '' ? '-' : text);
  print(table([['index', 'type', 'singular name', 'plural name'], ...types.map((t) => [String(t.group_type_index), t.group_type, name(t.name_singular), name(t.name_plural)])]));
}
