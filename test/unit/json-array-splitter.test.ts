import { describe, expect, it } from 'vitest';
import { jsonLayoutOf, JsonArraySplitter, type ArrayEntry } from '../../src/json/json-array-splitter.js';
import { parseJson } from '../../src/json/read-json.js';
import { randomChunks, randomValue, seededRandom } from '../helpers/random-json.js';

function split(chunks: readonly string[], maxElementChars?: number): ArrayEntry[] {
  const splitter = new JsonArraySplitter(maxElementChars);
  const out: ArrayEntry[] = [];
  for (const chunk of chunks) splitter.push(chunk, out);
  splitter.end(out);
  return out;
}

const PRETTY = `[
  {
    "event": "a",
    "properties": {"text": "] } [ { \\" \\\\", "list": [1, [2, {}]]}
  },
  {"event": "b"},

  "scalar \\"]\\"",
  -12.5e3, true, null, []
]
`;

describe('JsonArraySplitter', () => {
  it('gives each element with the line it starts on', () => {
    expect(split([PRETTY])).toEqual([
      { line: 2, text: '{\n    "event": "a",\n    "properties": {"text": "] } [ { \\" \\\\", "list": [1, [2, {}]]}\n  }' },
      { line: 6, text: '{"event": "b"}' },
      { line: 8, text: '"scalar \\"]\\""' },
      { line: 9, text: '-12.5e3' },
      { line: 9, text: 'true' },
      { line: 9, text: 'null' },
      { line: 9, text: '[]' },
    ]);
  });

  it('gives the same elements whatever the chunks: one character at a time, or random sizes', () => {
    const random = seededRandom(31);
    const values = Array.from({ length: 300 }, () => randomValue(random));
    const texts = [JSON.stringify(values), `\uFEFF${JSON.stringify(values, null, 2)}\r\n`, PRETTY];
    for (const text of texts) {
      const whole = split([text]);
      expect(whole.every((entry) => 'text' in entry)).toBe(true);
      expect(split([...text])).toEqual(whole);
      for (const maxChunk of [2, 7, 64, 4096]) expect(split(randomChunks(random, text, maxChunk))).toEqual(whole);
    }
    const elements = split([texts[1]!]).map((entry) => (entry as { text: string }).text);
    expect(elements.map((text) => JSON.parse(text) as unknown)).toEqual(values);
  });

  it('counts lines inside strings too (raw newlines there are not JSON, but the lines after them stay right)', () => {
    const text = '[{"a":"x\ny\\\nz"},\n{"b":"\\\\"},\n"s\n",\n{"c":1}]';
    const expected = [
      { line: 1, text: '{"a":"x\ny\\\nz"}' },
      { line: 4, text: '{"b":"\\\\"}' },
      { line: 5, text: '"s\n"' },
      { line: 7, text: '{"c":1}' },
    ];
    expect(split([text])).toEqual(expected);
    expect(split([...text])).toEqual(expected);
  });

  it('reads an empty array, and whitespace around it', () => {
    expect(split(['[]'])).toEqual([]);
    expect(split(['\uFEFF', '  \n [ \n ] \n\n'])).toEqual([]);
    expect(split(['   '])).toEqual([]);
  });

  it.each<[string, number, string, number]>([
    ['[{"a":1}] {"b":2}', 1, "unexpected text after the array's closing ']' at line 1", 1],
    ['[{"a":1},\n{"b":2}\n]\n]', 1 + 1, "unexpected text after the array's closing ']' at line 4", 4],
    ['[{"a":1},\n{"b":2}\n', 2, "the file ends before the array opened at line 1 is closed: ']' is missing", 3],
    ['[{"a":1},\n{"b":', 1, 'the file ends inside the element that starts at line 2', 2],
    ['[1', 1, "the file ends before the array opened at line 1 is closed: ']' is missing", 1],
    ['[{"a":1}\n{"b":2}]', 1, "expected ',' or ']' after the element that starts at line 1, found '{' at line 2", 2],
    ['[,{"a":1}]', 0, "expected an element at line 1, found ','", 1],
    ['[{"a":1},,{}]', 1, "expected an element at line 1, found ','", 1],
    ['[{"a":1},\n]', 1, "expected an element at line 2, found ']' (a comma before the closing bracket)", 2],
    ['[{"a":[1}]', 0, "'}' at line 1 does not close the '[' before it, in the element that starts at line 1", 1],
    ['{"a":1}', 0, "expected '[' at line 1: the file is not a JSON array", 1],
  ])('%j: %i elements, then "%s"', (text, elements, error, line) => {
    const out = split([text]);
    expect(out.filter((entry) => 'text' in entry)).toHaveLength(elements);
    expect(out.at(-1)).toEqual({ line, error });
    expect(split([...text])).toEqual(out);
  });

  it('stops at the first error and ignores what follows', () => {
    const splitter = new JsonArraySplitter();
    const out: ArrayEntry[] = [];
    splitter.push('[1] x', out);
    splitter.push(', 2]', out);
    splitter.end(out);
    expect(out).toEqual([
      { line: 1, text: '1' },
      { line: 1, error: "unexpected text after the array's closing ']' at line 1" },
    ]);
  });

  it('reports an element longer than the bound without keeping it, and goes on', () => {
    const long = `{"a":"${'x'.repeat(500)}","b":[1,2]}`;
    const text = `[\n{"small":1},\n${long},\n{"after":true}\n]`;
    const random = seededRandom(32);
    for (const chunks of [[text], randomChunks(random, text, 50)]) {
      expect(split(chunks, 100)).toEqual([
        { line: 2, text: '{"small":1}' },
        { line: 3, overlong: true, head: long.slice(0, 200), bytes: long.length },
        { line: 4, text: '{"after":true}' },
      ]);
    }
  });

  it('gives texts the reader parses with file lines in its messages', () => {
    const [first] = split(['[\n\n{\n  "a": 1,\n  "b": x\n}\n]']);
    expect(first).toMatchObject({ line: 3 });
    const read = parseJson((first as { text: string }).text, { firstLine: (first as { line: number }).line });
    expect(read).toMatchObject({ ok: false, problem: { reason: 'bad_json' } });
    expect(!read.ok && read.problem.message).toContain('at line 5, column 8');
  });
});

describe('jsonLayoutOf', () => {
  it.each<[string, 'array' | 'lines' | undefined]>([
    ['[{"a":1}]', 'array'],
    ['\uFEFF  \n\t[', 'array'],
    ['{"a":1}\n{"b":2}', 'lines'],
    ['\uFEFF{"a":1}', 'lines'],
    ['\n\n  {', 'lines'],
    ['x', 'lines'],
    ['   \n', undefined],
    ['', undefined],
    ['\uFEFF', undefined],
  ])('%j is %s', (head, layout) => {
    expect(jsonLayoutOf(head)).toBe(layout);
  });
});
