import { describe, expect, it } from 'vitest';
import { readJson } from '../../src/sandbox/capture/json-read.js';

const read = (text: string) => readJson(Buffer.from(text), text);

describe('readJson', () => {
  it.each([
    ['compact JSON', '{"a":1,"b":{"c":[1,2]}}', true],
    ['spaces around the colons', '{ "a" : 1 ,\n "b"\t:\r\n2 }', true],
    ['colons inside strings', '{"t":"10:00:00","u":"https://x"}', true],
    ['an escaped quote before a colon in a string (counted, so not proven)', '{"t":"a\\":b"}', false],
    ['a key twice in an event', '{"batch":[{"event":"a","event":"b"}]}', false],
    ['a key twice deep in properties', '{"p":{"q":{"x":1,"x":2}}}', false],
  ])('%s: no repeated key proven = %s', (_name, text, proven) => {
    expect(read(text)).toMatchObject({ noRepeatedKeys: proven });
  });

  it.each([
    ['invalid JSON', '{"a":', /JSON/],
    ['128 levels', '['.repeat(128) + ']'.repeat(128), /^recursion limit exceeded at byte 128$/],
    ['200,000 levels', '['.repeat(200_000) + ']'.repeat(200_000), /^recursion limit exceeded at byte 128$/],
    ['a number out of range', '{"n":[1,2,1e999]}', /^number out of range$/],
    ['a lone surrogate escape', '{"s":"\\udc00"}', /^lone trailing surrogate in hex escape$/],
    ['a byte order mark', '\uFEFF{}', /JSON/],
  ])('refuses %s', (_name, text, problem) => {
    const result = read(text);
    expect(result).toHaveProperty('readProblem');
    expect((result as { readProblem: string }).readProblem).toMatch(problem);
  });

  it('accepts 127 levels and scans only when asked', () => {
    const result = read('['.repeat(127) + ']'.repeat(127));
    if ('readProblem' in result) throw new Error(result.readProblem);
    expect(result.scan().events).toEqual([]);
  });
});
