/** Tables line up by the columns text takes in a terminal, whatever the script; long cells are cut in the middle. */
import { describe, expect, it } from 'vitest';
import { fitColumn, table } from '../../src/cli/terminal/table.js';
import { displayWidth, elideMiddle } from '../../src/util/display-width.js';

describe('displayWidth', () => {
  it.each([
    ['ascii', 'pageview', 8],
    ['accented, precomposed', 'café', 4],
    ['accented, combining mark', 'cafe\u0301', 4],
    ['CJK ideographs', '会社', 4],
    ['Hangul', '회사', 4],
    ['fullwidth letters', 'ＡＢ', 4],
    ['an emoji', '🎉', 2],
    ['an emoji with a skin tone', '👍🏽', 2],
    ['a family joined by zero-width joiners', '👨‍👩‍👧', 2],
    ['a zero-width space', 'a\u200bb', 2],
    ['mixed', 'plan_会員', 9],
  ])('%s', (_name, text, width) => expect(displayWidth(text)).toBe(width));
});

describe('elideMiddle', () => {
  it.each([
    ['fits: unchanged', 'data/events.csv', 20, 'data/events.csv'],
    ['cut in the middle', 'exports/2024/january/events-part-0001.csv', 20, 'exports…art-0001.csv'],
    ['by display width', '会社会社会社会社', 9, '会…社会社'],
  ])('%s', (_name, text, width, expected) => {
    const cut = elideMiddle(text, width);
    expect(cut).toBe(expected);
    expect(displayWidth(cut)).toBeLessThanOrEqual(width);
  });
});

describe('table', () => {
  it('pads by display width, so columns after wide keys line up', () => {
    const lines = table([
      ['  key', 'count'],
      ['  会員プラン', '12'],
      ['  plan', '3'],
      ['  🎉 launch', '1'],
    ]).split('\n');
    const column = (line: string) => displayWidth(line.slice(0, line.search(/\d+$|count$/)));
    expect(new Set(lines.map(column)).size).toBe(1);
  });

  it('fitColumn cuts one column so the table fits a width', () => {
    const long = `  ${'deep/'.repeat(30)}events.csv`;
    const rows = fitColumn(
      [
        ['  file', 'format', 'rows'],
        [long, 'csv', '1,000'],
        ['  short.csv', 'jsonl', '2'],
      ],
      0,
      60,
    );
    const lines = table(rows).split('\n');
    expect(Math.max(...lines.map(displayWidth))).toBeLessThanOrEqual(60);
    expect(rows[1]![0]).toMatch(/^ {2}deep\/.*….*events\.csv$/);
    expect(rows[2]![0]).toBe('  short.csv');
  });
});
