/**
 * How many terminal columns text takes, so tables line up whatever the script: East Asian wide
 * and fullwidth characters and emoji take two, combining marks and zero-width characters none.
 * A close approximation of Unicode's East Asian Width property and wcwidth, without a dependency.
 */

/** Code point ranges shown two columns wide (East Asian Wide and Fullwidth, and emoji). */
const WIDE: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f], // Hangul Jamo initial consonants
  [0x231a, 0x231b], // watch, hourglass
  [0x2329, 0x232a],
  [0x23e9, 0x23ec],
  [0x23f0, 0x23f0],
  [0x23f3, 0x23f3],
  [0x25fd, 0x25fe],
  [0x2614, 0x2615],
  [0x2648, 0x2653],
  [0x267f, 0x267f],
  [0x2693, 0x2693],
  [0x26a1, 0x26a1],
  [0x26aa, 0x26ab],
  [0x26bd, 0x26be],
  [0x26c4, 0x26c5],
  [0x26ce, 0x26ce],
  [0x26d4, 0x26d4],
  [0x26ea, 0x26ea],
  [0x26f2, 0x26f3],
  [0x26f5, 0x26f5],
  [0x26fa, 0x26fa],
  [0x26fd, 0x26fd],
  [0x2705, 0x2705],
  [0x270a, 0x270b],
  [0x2728, 0x2728],
  [0x274c, 0x274c],
  [0x274e, 0x274e],
  [0x2753, 0x2755],
  [0x2757, 0x2757],
  [0x2795, 0x2797],
  [0x27b0, 0x27b0],
  [0x27bf, 0x27bf],
  [0x2b1b, 0x2b1c],
  [0x2b50, 0x2b50],
  [0x2b55, 0x2b55],
  [0x2e80, 0x303e], // CJK radicals, Kangxi, CJK symbols and punctuation
  [0x3041, 0x33ff], // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, CJK compatibility
  [0x3400, 0x4dbf], // CJK extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xa000, 0xa4cf], // Yi
  [0xa960, 0xa97f], // Hangul Jamo extended A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small form variants
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6],
  [0x16fe0, 0x18cff], // Tangut, Khitan
  [0x1b000, 0x1b2ff], // Kana supplement and extensions, Nushu
  [0x1f004, 0x1f004],
  [0x1f0cf, 0x1f0cf],
  [0x1f18e, 0x1f18e],
  [0x1f191, 0x1f19a],
  [0x1f200, 0x1f251], // enclosed ideographic supplement
  [0x1f300, 0x1f64f], // symbols and pictographs, emoticons
  [0x1f680, 0x1f6ff], // transport and map symbols
  [0x1f7e0, 0x1f7eb],
  [0x1f90c, 0x1f9ff], // supplemental symbols and pictographs
  [0x1fa70, 0x1faff], // symbols and pictographs extended A
  [0x20000, 0x3fffd], // CJK extensions B and beyond
];

/** Code point ranges that take no column: combining marks, zero-width joiners and spaces, variation selectors. */
const ZERO: ReadonlyArray<readonly [number, number]> = [
  [0x0300, 0x036f], // combining diacritical marks
  [0x0483, 0x0489],
  [0x0591, 0x05bd],
  [0x0610, 0x061a],
  [0x064b, 0x065f],
  [0x0e31, 0x0e31],
  [0x0e34, 0x0e3a],
  [0x0e47, 0x0e4e],
  [0x1ab0, 0x1aff], // combining diacritical marks extended
  [0x1dc0, 0x1dff], // combining diacritical marks supplement
  [0x200b, 0x200f], // zero-width space, joiners, direction marks
  [0x20d0, 0x20ff], // combining marks for symbols
  [0x302a, 0x302f],
  [0x3099, 0x309a],
  [0xfe00, 0xfe0f], // variation selectors
  [0xfe20, 0xfe2f], // combining half marks
  [0xfeff, 0xfeff], // byte order mark
  [0x1f3fb, 0x1f3ff], // skin tone modifiers, shown on the emoji before them
  [0xe0000, 0xe0fff], // tags and variation selectors supplement
];

function inRanges(code: number, ranges: ReadonlyArray<readonly [number, number]>): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [from, to] = ranges[middle]!;
    if (code < from) high = middle - 1;
    else if (code > to) low = middle + 1;
    else return true;
  }
  return false;
}

/** Columns one code point takes: 0, 1 or 2. Control characters count as none. */
export function codePointWidth(code: number): number {
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
  if (code < 0x300) return 1;
  if (inRanges(code, ZERO)) return 0;
  return inRanges(code, WIDE) ? 2 : 1;
}

/** Columns `text` takes in a terminal. */
export function displayWidth(text: string): number {
  let width = 0;
  let joined = false;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    // An emoji joined to the one before by a zero-width joiner is drawn as one picture with it.
    if (joined && codePointWidth(code) === 2) {
      joined = false;
      continue;
    }
    joined = code === 0x200d;
    width += codePointWidth(code);
  }
  return width;
}

/** `text` padded with spaces to `width` columns. */
export function padToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

/**
 * `text` cut in the middle to fit `width` columns, with "…" where it was cut: the start and
 * the end of a path say most about it, the end (the file's name) a little more.
 */
export function elideMiddle(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  const chars = [...text];
  const room = Math.max(0, width - 1);
  const headWidth = Math.floor(room * 0.4);
  let head = '';
  for (const char of chars) {
    if (displayWidth(head + char) > headWidth) break;
    head += char;
  }
  let tail = '';
  for (let i = chars.length - 1; i >= 0; i--) {
    if (displayWidth(head) + displayWidth(chars[i]! + tail) > room) break;
    tail = chars[i]! + tail;
  }
  return `${head}…${tail}`;
}
