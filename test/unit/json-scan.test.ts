import { describe, expect, it } from 'vitest';
import { objectMembers } from '../../src/sandbox/capture/json-members.js';
import { MAX_JSON_DEPTH, scanJson } from '../../src/sandbox/capture/json-scan.js';

const scan = (text: string) => scanJson(Buffer.from(text));
const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

describe('scanJson: what serde_json refuses and JSON.parse accepts', () => {
  it.each([
    ['127 levels of nesting (serde_json takes them)', nested(MAX_JSON_DEPTH), undefined],
    ['128 levels', nested(128), 'recursion limit exceeded at byte 128'],
    ['200,000 levels, without a stack overflow', nested(200_000), 'recursion limit exceeded at byte 128'],
    ['128 levels of objects', '{"a":'.repeat(128) + '1' + '}'.repeat(128), 'recursion limit exceeded at byte 636'],
    ['a lone leading surrogate escape', '["\\ud800"]', 'lone leading surrogate in hex escape'],
    ['a lone trailing surrogate escape', '["\\uDC00x"]', 'lone trailing surrogate in hex escape'],
    ['a leading surrogate followed by a plain escape', '["\\ud800\\u0041"]', 'lone leading surrogate in hex escape'],
    ['a surrogate escape in a key', '{"\\ud800":1}', 'lone leading surrogate in hex escape'],
    ['a pair after a valid pair', '["\\ud83d\\ude00\\ud83d\\ude00"]', undefined],
    ['an escaped backslash before u (not an escape)', '["\\\\ud800"]', undefined],
    ['a number out of range', '[1e400]', 'number out of range'],
    ['a negative number out of range', '{"a":-1.5E+309}', 'number out of range'],
    ['400 digits', `[${'9'.repeat(400)}]`, 'number out of range'],
    ['a tiny number (underflows to 0, allowed)', '[1e-400]', undefined],
    ['the largest double', '[1.7976931348623157e308]', undefined],
    ['digits and an e inside a string', '["1e999"]', undefined],
    ['text that is not JSON at all', 'not json {"', undefined],
  ])('%s', (_name, text, problem) => {
    const result = scan(text);
    if (problem === undefined) expect(result).not.toHaveProperty('scanProblem');
    else expect(result).toEqual({ scanProblem: problem });
  });
});

describe('scanJson: events found and their keys counted as written', () => {
  it('finds the events of a batch, with spans and key counts (duplicates included)', () => {
    const text = '{"api_key":"k","batch":[{"event":"a","event":"b"} , {"event":"c","properties":{"x":{"y":[1]}}}],"sent_at":null}';
    const result = scan(text);
    if ('scanProblem' in result) throw new Error(result.scanProblem);
    expect(result.top).toEqual({ start: 0, end: text.length, keys: 3 });
    expect(result.events.map((e) => [text.slice(e.start, e.end), e.keys])).toEqual([
      ['{"event":"a","event":"b"}', 2],
      ['{"event":"c","properties":{"x":{"y":[1]}}}', 2],
    ]);
  });

  it('finds the events of an array and counts bytes, not characters', () => {
    const text = '[{"event":"é"},{"event":"x","k":"\\"}"}]';
    const result = scan(text);
    if ('scanProblem' in result) throw new Error(result.scanProblem);
    expect(result.top).toBeUndefined();
    expect(result.events.map((e) => [e.start, e.end, e.keys])).toEqual([
      [1, 15, 1],
      [16, 39, 2],
    ]);
  });
});

describe('objectMembers', () => {
  it('lists every key as written, with its value text', () => {
    const text = '{ "a" : 1.0 , "b":{"c":"}"},"a":[1,[2]], "\\u0064":"x\\"y" }';
    expect(objectMembers(text, 0).map((m) => [m.key, text.slice(m.valueStart, m.valueEnd)])).toEqual([
      ['a', '1.0'],
      ['b', '{"c":"}"}'],
      ['a', '[1,[2]]'],
      ['d', '"x\\"y"'],
    ]);
  });
});
