/**
 * Rejects of a Parquet file's rows name their row group too: its lines are its rows, so a
 * reject's line is the row in the file, and the row group and the row within it are added to
 * its message. A string whose bytes are not UTF-8 reaches the JSON reader as a lone surrogate
 * (the mark columnar-values.ts leaves); it is told as what it is, bad bytes in that column.
 */
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import type { ReaderOptions } from '../source-item.js';

/** The row group (1-based) holding `row` (1-based, of the file), and the row within it. */
export function rowGroupOf(rowGroupRows: readonly number[], row: number): { group: number; rowInGroup: number } {
  let first = 1;
  for (let group = 0; group < rowGroupRows.length; group++) {
    const rows = rowGroupRows[group]!;
    if (row < first + rows || group === rowGroupRows.length - 1) return { group: group + 1, rowInGroup: row - first + 1 };
    first += rows;
  }
  return { group: 1, rowInGroup: row };
}

/** `p` of row `line` with its row group named, for files that have row groups; else `p`. */
export function locateInRowGroup(options: Pick<ReaderOptions, 'rowGroupRows' | 'columnar'>, line: number, p: RowProblem): RowProblem {
  const rows = options.rowGroupRows;
  if (rows === undefined) return p;
  const { group, rowInGroup } = rowGroupOf(rows, line);
  const where = `(${options.columnar === 'avro' ? 'block' : 'row group'} ${group} of ${rows.length}, row ${rowInGroup} of it)`;
  if (p.reason === 'invalid_unicode')
    return problem(
      'invalid_utf8',
      p.field,
      `${p.field === '' ? 'a value' : `column ${p.field}`} holds bytes that are not valid UTF-8, as ${options.columnar === 'avro' ? 'Avro' : 'Parquet'} strings must be ${where}`,
    );
  return { ...p, message: `${p.message} ${where}` };
}
