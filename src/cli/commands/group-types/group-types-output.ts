/** What `group-types list` prints: the group types and their indexes as a table, or JSON. */
import type { GroupType } from '../../../management/management-schemas.js';
import { print, printJson } from '../../terminal/output.js';
import { table } from '../../terminal/table.js';

export function presentGroupTypes(types: GroupType[], json: boolean): void {
  if (json) return printJson(types);
  if (types.length === 0) return print('No group types yet: they appear once $groupidentify events have been ingested.');
  print(table([['index', 'type', 'singular', 'plural'], ...types.map((t) => [String(t.group_type_index), t.group_type, t.name_singular ?? '', t.name_plural ?? ''])]));
}
