import { describe, expect, it } from 'vitest';
import { wrapText } from '../../src/cli/terminal/wrap-text.js';

describe('wrapText', () => {
  it.each<[string, string, number, string, string[]]>([
    ['a short line stays whole', 'GeoIP: off', 20, '  ', ['GeoIP: off']],
    ['the first line keeps its leading spaces', '  one two three four', 12, '    ', ['  one two', '    three', '    four']],
    ['a word longer than the width stays whole', 'tiny enormousword x', 8, ' ', ['tiny', ' enormousword', ' x']],
    ['wide characters count by display width', '数据 数据 数据', 9, '', ['数据 数据', '数据']],
  ])('%s', (_name, text, width, indent, lines) => {
    expect(wrapText(text, width, indent)).toEqual(lines);
  });
});
