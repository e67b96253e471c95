/** What rejects prints: every rejected row as `file:line reason field: message` (and its raw text with --raw), or JSON. */
import type { RejectRow } from '../../../staging/staging-report.js';
import { displayPath } from '../../terminal/display-path.js';
import { print, printJson } from '../../terminal/output.js';

const RAW_SHOWN_CHARS = 500;

export function presentRejects(rows: RejectRow[], options: { json: boolean; raw: boolean }): void {
  if (options.json) {
    printJson(rows);
    return;
  }
  if (rows.length === 0) print('No rejected rows.');
  for (const row of rows) {
    print(`${displayPath(row.path)}:${row.line} ${row.reason} ${row.field ? `${row.field}: ` : ''}${row.message}`);
    if (options.raw) print(`    ${row.raw.length > RAW_SHOWN_CHARS ? `${row.raw.slice(0, RAW_SHOWN_CHARS)}...` : row.raw}`);
  }
}
