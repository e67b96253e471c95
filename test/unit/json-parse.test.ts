import { describe, expect, it } from 'vitest';
import { parseJsonCarefully } from '../../src/json/careful-json-parser.js';
import type { JsonProblem } from '../../src/json/json-problem.js';
import type { JsonParseResult, JsonReadOptions, JsonValue } from '../../src/json/json-value.js';
import { stringifyJson } from '../../src/json/json-writer.js';
import { setOwnProperty } from '../../src/json/own-property.js';
import { parseJson } from '../../src/json/read-json.js';
import { mutate, randomText, randomValue, seededRandom } from '../helpers/random-json.js';

/** Both readers (the fast path and the careful parser) must agree; returns the value. */
function read(text: string, options: JsonReadOptions = {}): JsonValue {
  const fast = parseJson(text, options);
  const careful = parseJsonCarefully(text, options);
  expect(fast).toEqual(careful);
  if (!fast.ok) throw new Error(`expected a value, got ${fast.problem.message}`);
  return fast.value;
}

/** Both readers' problem (they must agree). */
function problemOf(text: string, options: JsonReadOptions = {}): JsonProblem {
  const fast = parseJson(text, options);
  expect(fast).toEqual(parseJsonCarefully(text, options));
  if (fast.ok) throw new Error(`expected a problem, got ${String(fast.value)}`);
  return fast.problem;
}

describe('parseJson: integers', () => {
  it.each<[string, JsonValue, string]>([
    ['9007199254740991', 9007199254740991, '2^53 - 1 is a number'],
    ['-9007199254740991', -9007199254740991, 'so is its negative'],
    ['9007199254740992', 9007199254740992n, '2^53 is a BigInt'],
    ['9007199254740993', 9007199254740993n, '2^53 + 1, which JSON.parse rounds'],
    ['-9007199254740993', -9007199254740993n, 'negative beyond 2^53'],
    ['9223372036854775807', 9223372036854775807n, '2^63 - 1'],
    ['9223372036854775808', 9223372036854775808n, '2^63 (unsigned)'],
    ['-9223372036854775808', -9223372036854775808n, '-2^63'],
    ['18446744073709551615', 18446744073709551615n, '2^64 - 1'],
    ['18446744073709551616', '18446744073709551616', '2^64: its digits as a string'],
    ['-9223372036854775809', '-9223372036854775809', 'below -2^63: its digits as a string'],
    ['123456789012345678901234567890', '123456789012345678901234567890', '30 digits'],
    ['1000000000000000', 1000000000000000, '16 digits below 2^53'],
    ['0', 0, 'zero'],
    ['-0', -0, 'negative zero, as JSON.parse'],
  ])('%s -> %s (%s)', (text, expected) => {
    expect(read(text)).toEqual(expected);
    expect(read(`{"id":${text}}`)).toEqual({ id: expected });
  });

  it('writes integers back with their exact digits', () => {
    const text = '{"a":9007199254740995,"b":[-9223372036854775808,18446744073709551615],"c":12}';
    expect(stringifyJson(read(text))).toBe(text);
  });

  it('refuses integers beyond 64 bits when asked to', () => {
    expect(problemOf('{"a":[1,18446744073709551616]}', { wideIntegers: 'reject' })).toMatchObject({ reason: 'number_out_of_range', field: 'a[1]' });
    expect(read('18446744073709551615', { wideIntegers: 'reject' })).toBe(18446744073709551615n);
  });
});

describe('parseJson: other numbers', () => {
  it.each<[string, number]>([
    ['1.10', 1.1],
    ['1.0', 1],
    ['-2.5', -2.5],
    ['1e3', 1000],
    ['1E+2', 100],
    ['2.5e-3', 0.0025],
    ['1e-400', 0],
    ['-1e-400', -0],
    ['0e999', 0],
    ['12345678901234567.5', 12345678901234567.5],
    ['0.12345678901234567890123', 0.12345678901234568],
    ['1e308', 1e308],
  ])('%s is the float %s, as JSON.parse and PostHog read it', (text, expected) => {
    expect(read(text)).toBe(expected);
  });

  it.each(['1e400', '-1e400', '1E+999', '123456789e301', '1' + '0'.repeat(400) + '.5'])('%s is out of range, with its path', (text) => {
    const problem = problemOf(`{"properties":{"list":[0,${text}]}}`);
    expect(problem).toMatchObject({ reason: 'number_out_of_range', field: 'properties.list[1]' });
    expect(problem.message).toContain('beyond the range of a 64-bit float');
  });

  it('keeps an out-of-range number as its text when asked to', () => {
    expect(read('{"a":1e400,"b":-1e400}', { outOfRangeNumbers: 'string' })).toEqual({ a: '1e400', b: '-1e400' });
  });
});

describe('parseJson: keys', () => {
  it.each([
    ['{"__proto__":{"x":1}}', ['__proto__']],
    ['{"a":{"__proto__":{"polluted":true},"b":1}}', ['a', '__proto__']],
    ['[{"__proto__":[1,2]}]', [0, '__proto__']],
    ['{"a":[{"b":{"__proto__":null}}]}', ['a', 0, 'b', '__proto__']],
    ['{"\\u005f_proto__":5}', ['__proto__']],
    ['{"__proto__":1,"big":9007199254740993}', ['__proto__']],
  ])('%s keeps __proto__ as an own property', (text, path) => {
    const value = read(text);
    let parent: unknown = value;
    for (const segment of path.slice(0, -1)) parent = (parent as Record<string, unknown>)[segment as string];
    expect(Object.hasOwn(parent as object, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(parent)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(stringifyJson(value)).toContain('"__proto__":');
  });

  it('is copied into a new object by setOwnProperty, where an assignment would lose it', () => {
    const source = read('{"__proto__":{"x":1},"a":2}') as Record<string, unknown>;
    const assigned: Record<string, unknown> = {};
    const copied: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(source)) {
      assigned[key] = value;
      setOwnProperty(copied, key, value);
    }
    expect(stringifyJson(assigned)).toBe('{"a":2}');
    expect(assigned.x).toBe(1);
    expect(stringifyJson(copied)).toBe('{"__proto__":{"x":1},"a":2}');
    expect(copied.x).toBeUndefined();
    expect(stringifyJson({ ...source })).toBe('{"__proto__":{"x":1},"a":2}');
  });

  it('keeps constructor and other Object.prototype names as plain keys', () => {
    const value = read('{"constructor":"c","toString":1,"hasOwnProperty":[],"big":18446744073709551615}') as Record<string, unknown>;
    expect(value).toEqual({ constructor: 'c', toString: 1, hasOwnProperty: [], big: 18446744073709551615n });
  });

  it('orders keys as JavaScript does: integer-like keys first, then source order', () => {
    for (const tail of ['', ',"z":9007199254740993']) {
      const value = read(`{"b":1,"2":2,"a":3,"1":4${tail}}`) as Record<string, unknown>;
      expect(Object.keys(value).slice(0, 4)).toEqual(['1', '2', 'b', 'a']);
    }
  });

  it('keeps the last of duplicate keys, as JSON.parse', () => {
    expect(read('{"a":1,"b":2,"a":3}')).toEqual({ a: 3, b: 2 });
    expect(read('{"a":1,"a":9007199254740993}')).toEqual({ a: 9007199254740993n });
  });
});

describe('parseJson: depth', () => {
  const arrays = (n: number): string => '['.repeat(n) + ']'.repeat(n);
  const objects = (n: number): string => '{"a":'.repeat(n - 1) + '{}' + '}'.repeat(n - 1);

  it('accepts 128 levels and refuses 129, naming the depth', () => {
    expect(parseJson(arrays(128)).ok).toBe(true);
    expect(parseJson(objects(128)).ok).toBe(true);
    expect(problemOf(arrays(129))).toMatchObject({ reason: 'too_deep', depth: 129 });
    const problem = problemOf(objects(129));
    expect(problem).toMatchObject({ reason: 'too_deep', depth: 129 });
    expect(problem.field.startsWith('a.a.a.a')).toBe(true);
  });

  it('refuses 200,000 levels with a problem, not a stack overflow', () => {
    for (const text of ['['.repeat(200_000), arrays(200_000), '{"a":'.repeat(200_000)]) {
      const problem = problemOf(text);
      expect(problem.reason).toBe('too_deep');
      expect(problem.message).toContain('PostHog accepts at most 128');
    }
    expect(problemOf(arrays(200_000)).depth).toBe(200_000);
  });

  it('takes another limit', () => {
    expect(problemOf('{"a":[[1]]}', { maxDepth: 2 })).toMatchObject({ reason: 'too_deep', field: 'a[0]', depth: 3 });
    expect(read(arrays(1000), { maxDepth: 1000 })).toBeDefined();
  });
});

describe('parseJson: strings', () => {
  it('decodes every JSON escape', () => {
    expect(read('"\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\u0041 \\u2028"')).toBe('" \\ / \b \f \n \r \t é A \u2028');
    expect(read('"\\ud83d\\ude00 and 😀 and \\uD83D\\uDE00"')).toBe('😀 and 😀 and 😀');
  });

  it.each([
    ['{"a":"\\ud800x"}', 'a'],
    ['{"a":"\\udc00"}', 'a'],
    ['{"a":"\\ude00\\ud83d"}', 'a'],
    ['{"a":"end \\ud83d"}', 'a'],
    ['{"a":"\\ud800\\u0041"}', 'a'],
    ['{"p":{"list":["ok","\\udfff"]}}', 'p.list[1]'],
    ['{"p":{"\\ud800":1}}', 'p["\\ud800"]'],
    ['["x","\\\\\\ud800"]', '[1]'],
  ])('%s holds a lone surrogate at %s', (text, field) => {
    expect(problemOf(text)).toMatchObject({ reason: 'invalid_unicode', field });
  });

  it('finds a raw lone surrogate in a text given as a JavaScript string', () => {
    expect(problemOf('{"a":["\ud800"]}')).toMatchObject({ reason: 'invalid_unicode', field: 'a[0]' });
    expect(problemOf('{"\udc00":1}')).toMatchObject({ reason: 'invalid_unicode', field: '["\\udc00"]' });
  });

  it('still finds escaped lone surrogates when the text is vouched well-formed', () => {
    expect(parseJson('{"a":"\\ud800"}', { wellFormedText: true })).toMatchObject({ ok: false, problem: { reason: 'invalid_unicode', field: 'a' } });
    expect(parseJson('["\\ud83d\\ude00"]', { wellFormedText: true })).toEqual({ ok: true, value: ['😀'] });
  });

  it('is not fooled by an escaped backslash before u', () => {
    expect(read('"\\\\ud800"')).toBe('\\ud800');
  });
});

describe('parseJson: syntax errors', () => {
  it.each<[string, string, number]>([
    ['{"a":x}', "unexpected character 'x' at column 6; expected a value", 5],
    ['{"a":1,}', "unexpected character '}' at column 8; expected a property name in double quotes", 7],
    ["{'a':1}", "unexpected character ''' at column 2; expected a property name in double quotes", 1],
    ['[1 2]', "unexpected character '2' at column 4; expected ',' or ']' after an array element", 3],
    ['[1,]', "unexpected character ']' at column 4; expected a value", 3],
    ['{"a" 1}', "unexpected character '1' at column 6; expected ':' after a property name", 5],
    ['{"a":1} x', "unexpected character 'x' at column 9, after the JSON value", 8],
    ['{"a":1', "the text ends before the object opened at column 1 is closed (expected ',' or '}' after a property value)", 6],
    ['[[1]', 'the text ends before the array opened at column 1 is closed', 4],
    ['', 'the text ends at column 1; expected a value', 0],
    ['   ', 'the text ends at column 4; expected a value', 3],
    ['{"a":"b', 'the text ends inside the string that starts at column 6', 7],
    ['"a\\u00zz"', '\\u must be followed by four hexadecimal digits at column 3', 2],
    ['"a\\q"', 'invalid escape in a string at column 3', 2],
    ['"a\tb"', 'a control character must be escaped in a string at column 3', 2],
    ['01', 'a number cannot start with 0 followed by digits at column 1', 1],
    ['-', "expected a digit after '-' at column 2", 1],
    ['-x', "expected a digit after '-' at column 2", 1],
    ['1.', 'expected a digit after the decimal point at column 3', 2],
    ['1.e5', 'expected a digit after the decimal point at column 3', 2],
    ['1e', 'expected a digit in the exponent at column 3', 2],
    ['+1', "unexpected character '+' at column 1; expected a value", 0],
    ['NaN', "unexpected character 'N' at column 1", 0],
    ['tru', "unexpected character 't' at column 1", 0],
    ['{"a":\u00a0 1}', 'unexpected character U+00A0 at column 6', 5],
  ])('%j: %s', (text, message, offset) => {
    const problem = problemOf(text);
    expect(problem).toMatchObject({ reason: 'bad_json', field: '', offset });
    expect(problem.message).toContain(message);
  });

  it('gives file lines for a text that starts on a known line', () => {
    expect(problemOf('{\n  "a": 1,\n  "b": x\n}', { firstLine: 40 }).message).toContain("unexpected character 'x' at line 42, column 8");
    expect(problemOf('{\n  "a": x\n}').message).toContain('at line 2, column 8');
  });
});

describe('parseJson: agrees with JSON.parse', () => {
  it('reads random JSON texts exactly as JSON.parse does', () => {
    const random = seededRandom(11);
    for (let i = 0; i < 3000; i++) {
      const text = randomText(random, randomValue(random));
      const expected = JSON.parse(text) as unknown;
      expect(parseJson(text)).toEqual({ ok: true, value: expected });
      expect(parseJsonCarefully(text)).toEqual({ ok: true, value: expected });
    }
  });

  it('refuses exactly the damaged texts JSON.parse refuses', () => {
    const random = seededRandom(12);
    for (let i = 0; i < 5000; i++) {
      const text = mutate(random, randomText(random, randomValue(random, 3)));
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      const results: JsonParseResult[] = [parseJson(text), parseJsonCarefully(text)];
      for (const result of results) {
        if (valid) expect(result.ok || result.problem.reason !== 'bad_json', text).toBe(true);
        else expect(result.ok, text).toBe(false);
      }
    }
  });
});
