/** Text tables for command output, aligned by the columns text takes in a terminal (see displayWidth). */
import { displayWidth, elideMiddle, padToWidth } from '../../util/display-width.js';

type Rows = ReadonlyArray<ReadonlyArray<string>>;

const GAP = '  ';

function columnWidths(rows: Rows): number[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, displayWidth(cell))));
  return widths;
}

/** Rows as aligned columns; the first row is the header. */
export function table(rows: Rows): string {
  const widths = columnWidths(rows);
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : padToWidth(cell, widths[i]!)))
        .join(GAP)
        .trimEnd(),
    )
    .join('\n');
}

/**
 * The rows with the cells of `column` cut in the middle (see elideMiddle) so that the table
 * fits `maxWidth` columns, the column keeping at least `minWidth`. Long paths would otherwise
 * make every line of a table wrap.
 */
export function fitColumn(rows: Rows, column: number, maxWidth: number, minWidth = 24): string[][] {
  const widths = columnWidths(rows);
  const total = widths.reduce((sum, w) => sum + w, 0) + GAP.length * Math.max(0, widths.length - 1);
  const room = Math.max(minWidth, widths[column]! - Math.max(0, total - maxWidth));
  return rows.map((row) => row.map((cell, i) => (i === column ? elideMiddle(cell, room) : cell)));
}
