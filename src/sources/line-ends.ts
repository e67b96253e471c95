/**
 * Line ends as every reader counts them: `\n`, `\r\n` (one line end) and a lone `\r` (classic
 * Mac and some Excel exports). One rule everywhere, so a reject's `file:line` is the line an
 * editor shows.
 */

const LF = 10;
const CR = 13;

/**
 * Line ends in `text[from, to)`. A `\r` just before `to` counts as one even when a `\n` may
 * follow beyond `to`: callers never cut text between the two (see endsInCr).
 */
export function countLineEnds(text: string, from = 0, to = text.length): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) count++;
  for (let i = text.indexOf('\r', from); i !== -1 && i < to; i = text.indexOf('\r', i + 1)) {
    if (text.charCodeAt(i + 1) !== LF || i + 1 >= to) count++;
  }
  return count;
}

/** Line ends in texts read one after another (a `\r\n` may be split between two of them). */
export function countLineEndsIn(texts: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i]!;
    count += countLineEnds(text);
    if (endsInCr(text) && texts[i + 1]?.charCodeAt(0) === LF) count--;
  }
  return count;
}

export function endsInCr(text: string): boolean {
  return text.length > 0 && text.charCodeAt(text.length - 1) === CR;
}

/**
 * The next line end at or after `from`: its offset and the offset just past it. A `\r` at the
 * very end of the text reports `next` -1 when `more` text may follow (a `\n` may be next).
 */
export function nextLineEnd(text: string, from: number, more: boolean): { at: number; next: number } | undefined {
  const lf = text.indexOf('\n', from);
  const cr = text.indexOf('\r', from);
  if (cr === -1 || (lf !== -1 && lf < cr)) return lf === -1 ? undefined : { at: lf, next: lf + 1 };
  if (cr + 1 < text.length) return { at: cr, next: text.charCodeAt(cr + 1) === LF ? cr + 2 : cr + 1 };
  return { at: cr, next: more ? -1 : cr + 1 };
}

/** `text` cut to at most `chars` UTF-16 units, never in the middle of a surrogate pair. */
export function headOf(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const code = text.charCodeAt(chars - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? chars - 1 : chars);
}

export const LINE_FEED = LF;
export const CARRIAGE_RETURN = CR;
