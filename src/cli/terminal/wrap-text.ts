/** Long prose lines wrapped at spaces, so status stays within the width its tables keep. */
import { displayWidth } from '../../util/display-width.js';

/**
 * `text` cut at spaces into lines of at most `width` columns (a word longer than that stays
 * whole); the first line keeps the text's own leading spaces, the others start with `indent`.
 */
export function wrapText(text: string, width: number, indent = ''): string[] {
  const lead = /^ */.exec(text)![0];
  const lines: string[] = [];
  let line = lead;
  for (const word of text.slice(lead.length).split(' ')) {
    const start = lines.length === 0 ? lead : indent;
    const next = line === start ? `${line}${word}` : `${line} ${word}`;
    if (line !== start && displayWidth(next) > width) {
      lines.push(line);
      line = `${indent}${word}`;
    } else {
      line = next;
    }
  }
  lines.push(line);
  return lines;
}
