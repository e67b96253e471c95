import { describe, expect, it } from 'vitest';
import { CsvTokenizer, type CsvItem, type CsvSyntax } from '../../src/sources/csv-tokenizer.js';

/** Tokenizes `text` fed in pieces of `chunk` characters, to prove chunk boundaries never matter. */
function tokenize(text: string, chunk = text.length, maxRecordChars?: number, syntax: CsvSyntax = {}): CsvItem[] {
  const tokenizer = new CsvTokenizer({ maxRecordChars, ...syntax });
  const out: CsvItem[] = [];
  for (let i = 0; i < text.length; i += chunk) tokenizer.push(text.slice(i, i + chunk), out);
  tokenizer.end(out);
  return out;
}

const cases: Array<{ name: string; text: string; syntax?: CsvSyntax; expected: Array<{ line: number; fields?: string[]; message?: RegExp }> }> = [
  {
    name: 'lone CR line ends (classic Mac)',
    text: 'a,b\r1,2\r\r3,4',
    expected: [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
      { line: 4, fields: ['3', '4'] },
    ],
  },
  {
    name: 'mixed line ends count once each',
    text: 'a\r\nb\rc\nd',
    expected: [
      { line: 1, fields: ['a'] },
      { line: 2, fields: ['b'] },
      { line: 3, fields: ['c'] },
      { line: 4, fields: ['d'] },
    ],
  },
  {
    name: 'quoted lone CR is data, and a line',
    text: '"x\ry",1\r2,3\r',
    expected: [
      { line: 1, fields: ['x\ry', '1'] },
      { line: 3, fields: ['2', '3'] },
    ],
  },
  {
    name: 'semicolons',
    text: 'a;b\n"1;2";3\n',
    syntax: { delimiter: ';' },
    expected: [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1;2', '3'] },
    ],
  },
  {
    name: 'tabs, empty fields kept when trimming',
    text: 'a\t\tb\n x \t"y"\t\n',
    syntax: { delimiter: '\t', trim: true },
    expected: [
      { line: 1, fields: ['a', '', 'b'] },
      { line: 2, fields: ['x', 'y', ''] },
    ],
  },
  { name: 'pipes', text: 'a|b,c\n', syntax: { delimiter: '|' }, expected: [{ line: 1, fields: ['a', 'b,c'] }] },
  {
    name: 'trim: spaces around unquoted values and around quotes go, quoted spaces stay',
    text: 'click, u1 ,  "  spaced  " , x\n',
    syntax: { trim: true },
    expected: [{ line: 1, fields: ['click', 'u1', '  spaced  ', 'x'] }],
  },
  { name: 'no trim: spaces are data, a quote after a space is text', text: 'click, u1, "q"\n', expected: [{ line: 1, fields: ['click', ' u1', ' "q"'] }] },
  {
    name: 'trim: a line of spaces is blank',
    text: 'a\n   \nb\n',
    syntax: { trim: true },
    expected: [
      { line: 1, fields: ['a'] },
      { line: 3, fields: ['b'] },
    ],
  },
  {
    name: 'a quote inside an unquoted value is text',
    text: 'a,5" screen,b\nc\n',
    expected: [
      { line: 1, fields: ['a', '5" screen', 'b'] },
      { line: 2, fields: ['c'] },
    ],
  },
  {
    name: 'plain LF',
    text: 'a,b\n1,2\n',
    expected: [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
    ],
  },
  {
    name: 'CRLF',
    text: 'a,b\r\n1,2\r\n',
    expected: [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
    ],
  },
  {
    name: 'no final newline',
    text: 'a,b\n1,2',
    expected: [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
    ],
  },
  {
    name: 'BOM is dropped',
    text: '\ufeffa,b\n1,2\n',
    expected: [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
    ],
  },
  {
    name: 'quoted comma',
    text: 'a\n"x,y"\n',
    expected: [
      { line: 1, fields: ['a'] },
      { line: 2, fields: ['x,y'] },
    ],
  },
  { name: 'doubled quotes', text: '"say ""hi""",b\n', expected: [{ line: 1, fields: ['say "hi"', 'b'] }] },
  {
    name: 'quoted LF keeps line numbers',
    text: 'a,b\n"one\ntwo",x\n3,4\n',
    expected: [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['one\ntwo', 'x'] },
      { line: 4, fields: ['3', '4'] },
    ],
  },
  {
    name: 'quoted CRLF counts once',
    text: 'a,b\r\n"one\r\ntwo",x\r\n\r\n3,4\r\n',
    expected: [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['one\r\ntwo', 'x'] },
      { line: 5, fields: ['3', '4'] },
    ],
  },
  {
    name: 'blank lines skipped',
    text: 'a\n\n\nb\n',
    expected: [
      { line: 1, fields: ['a'] },
      { line: 4, fields: ['b'] },
    ],
  },
  { name: 'empty fields', text: ',,\n', expected: [{ line: 1, fields: ['', '', ''] }] },
  { name: 'quoted empty is a record', text: '""\n', expected: [{ line: 1, fields: [''] }] },
  { name: 'unicode', text: 'naïve,東京,🎉\n', expected: [{ line: 1, fields: ['naïve', '東京', '🎉'] }] },
  {
    name: 'junk after closing quote: problem, next line parsed',
    text: 'a,b\n"x"y,1\n2,3\n',
    expected: [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, message: /after a closing quote/ },
      { line: 3, fields: ['2', '3'] },
    ],
  },
  {
    name: 'unclosed quote at the end: problem, later lines still parsed',
    text: 'a,b\n"open,1\n2,3\n',
    expected: [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, message: /never closed/ },
      { line: 3, fields: ['2', '3'] },
    ],
  },
];

describe('CsvTokenizer', () => {
  for (const c of cases) {
    for (const chunk of [c.text.length, 1, 3]) {
      it(`${c.name} (chunks of ${chunk})`, () => {
        const items = tokenize(c.text, chunk, undefined, c.syntax);
        expect(items.map((i) => ('fields' in i ? { line: i.line, fields: i.fields } : { line: i.line, message: i.message }))).toEqual(
          c.expected.map((e) => (e.fields ? e : { line: e.line, message: expect.stringMatching(e.message!) })),
        );
      });
    }
  }

  it('keeps the raw text of each record without its line ending', () => {
    const items = tokenize('a,b\r\n"x\r\ny",2\r\n');
    expect(items.map((i) => i.raw)).toEqual(['a,b', '"x\r\ny",2']);
  });

  it('keeps the raw line of a bad record', () => {
    expect(
      tokenize('a\r\n"x"y,1\r\n"open,2\r\n')
        .filter((i) => !('fields' in i))
        .map((i) => i.raw),
    ).toEqual(['"x"y,1', '"open,2']);
  });

  it('bounds a runaway quoted field and resumes on the next line', () => {
    const text = 'a\n"' + 'x'.repeat(50) + '\nb\nc\n';
    const items = tokenize(text, 8, 20);
    expect(items[0]).toMatchObject({ line: 1, fields: ['a'] });
    expect(items[1]).toMatchObject({ line: 2, message: expect.stringMatching(/longer than 20/) });
    expect(items.slice(2)).toMatchObject([
      { line: 3, fields: ['b'] },
      { line: 4, fields: ['c'] },
    ]);
  });
});
