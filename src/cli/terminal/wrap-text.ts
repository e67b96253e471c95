/** Long prose lines wrapped at spaces, so status stays within the width its tables keep. */
import { displayWidth } from '../../util/display-width.js';

/** `text` cut at spaces into lines of at most `width` columns; the lines after the first start with `indent`. */
export function wrapText(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line === '' ? word : `${line} ${word}`;
    if (line !== '' && displayWidth(next) > width) {
      lines.push(line);
      line = `${indent}${word}`;
    } else {
      line = next;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
