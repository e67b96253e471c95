/** What `copy-config` prints: per kind, how many objects were created, updated, left alone, skipped; then each one that needs a word. */
import { countsByKind, OUTCOMES } from '../../../copy-config/copy-report.js';
import type { CopyConfigResult } from '../../../copy-config/copy-config.js';
import { KIND_NOUN } from '../../../copy-config/config-kinds.js';
import { print, printJson } from '../../terminal/output.js';
import { table } from '../../terminal/table.js';

const HEADINGS: Record<string, string> = { created: 'created', updated: 'updated', unchanged: 'unchanged', edited: 'edited there', skipped: 'skipped', refused: 'refused', failed: 'failed' };
const DRY_HEADINGS: Record<string, string> = { ...HEADINGS, created: 'would create', updated: 'would update' };

export function presentCopyReport(result: CopyConfigResult, json: boolean): void {
  if (json) return printJson(result);
  const headings = result.dryRun ? DRY_HEADINGS : HEADINGS;
  print(result.dryRun ? 'Plan (dry run: nothing was changed):' : 'Copied:');
  const counts = countsByKind(result);
  if (counts.size === 0) print('  nothing to copy: the source has no objects of these kinds');
  else print(table([['kind', ...OUTCOMES.map((o) => headings[o]!)], ...[...counts].map(([kind, row]) => [kind, ...OUTCOMES.map((o) => String(row[o]))])]));
  const told = result.items.filter((item) => item.reason !== undefined || item.warnings !== undefined);
  for (const item of told) {
    const where = `${KIND_NOUN[item.kind]} ${item.sourceId} "${item.name}"${item.destId !== undefined && item.destId > 0 ? ` (now ${item.destId})` : ''}`;
    if (item.reason !== undefined) print(`  ${where}: ${headings[item.outcome]}: ${item.reason}`);
    for (const warning of item.warnings ?? []) print(`  ${where}: warning: ${warning}`);
  }
  for (const note of result.notes) print(`  note: ${note}`);
}
