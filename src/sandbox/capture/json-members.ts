/**
 * The members of one JSON object as written: every key (duplicates included) with where its
 * value's text lies. For the rare event that needs a closer look (a key count that does not
 * match its parsed form, a numeric distinct_id whose digits must be kept). Only called on
 * text `JSON.parse` accepted, so it can assume the syntax is right.
 */

export interface JsonMember {
  key: string;
  /** The value's source text is `text.slice(valueStart, valueEnd)`. */
  valueStart: number;
  valueEnd: number;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

function skipSpace(s: string, i: number): number {
  while (isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** The index past the string whose opening quote is at `i`. */
function skipString(s: string, i: number): number {
  for (let at = i + 1; ; ) {
    const quote = s.indexOf('"', at);
    const backslash = s.indexOf('\\', at);
    if (backslash === -1 || backslash > quote) return quote + 1;
    at = backslash + 2;
  }
}

/** The index past the value starting at `i`. */
function skipValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 0x22) return skipString(s, i);
  if (c !== 0x7b && c !== 0x5b) {
    while (i < s.length && !isSpace(s.charCodeAt(i)) && ',}]'.indexOf(s[i]!) === -1) i++;
    return i;
  }
  let depth = 0;
  do {
    const k = s.charCodeAt(i);
    if (k === 0x22) {
      i = skipString(s, i);
      continue;
    }
    if (k === 0x7b || k === 0x5b) depth++;
    else if (k === 0x7d || k === 0x5d) depth--;
    i++;
  } while (depth > 0);
  return i;
}

export function objectMembers(text: string, start: number): JsonMember[] {
  const members: JsonMember[] = [];
  let i = skipSpace(text, start + 1);
  while (text.charCodeAt(i) === 0x22) {
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const valueEnd = skipValue(text, valueStart);
    members.push({ key, valueStart, valueEnd });
    i = skipSpace(text, valueEnd);
    if (text.charCodeAt(i) === 0x2c) i = skipSpace(text, i + 1);
  }
  return members;
}
