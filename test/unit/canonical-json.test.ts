import { describe, expect, it } from 'vitest';
import { canonicalJson, writeCanonical } from '../../src/json/canonical-json.js';
import { parseJson } from '../../src/json/read-json.js';
import { randomValue, seededRandom } from '../helpers/random-json.js';

/** A value with each kind of thing the native path must hand to writeCanonical, or must write as it does. */
function awkward(random: () => number, value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    const roll = random();
    if (roll < 0.05) return 9_007_199_254_740_993n + BigInt(Math.floor(random() * 1000));
    if (roll < 0.08) return undefined;
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => awkward(random, v));
  const out: Record<string, unknown> = random() < 0.1 ? Object.create(null) : {};
  for (const key of Object.keys(value)) Object.defineProperty(out, key, { value: awkward(random, (value as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true });
  return out;
}

describe('canonicalJson', () => {
  it.each<[string, unknown, string]>([
    ['keys sorted at every depth, undefined left out', { b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } }, '{"a":{"d":[2,{"y":2,"z":1}]},"b":1}'],
    ['an object already in order', { a: 1, b: [true, null], c: 'x' }, '{"a":1,"b":[true,null],"c":"x"}'],
    ['array index keys in string order', { b: 1, 10: 'ten', 2: 'two', a: 0 }, '{"10":"ten","2":"two","a":0,"b":1}'],
    ['a BigInt as its digits', { n: 12345678901234567890n, a: [1n] }, '{"a":[1],"n":12345678901234567890}'],
    ['__proto__ as an own key', JSON.parse('{"z":1,"__proto__":{"b":2,"a":1}}'), '{"__proto__":{"a":1,"b":2},"z":1}'],
    ['undefined in an array as null', [undefined, 1], '[null,1]'],
    ['non-finite numbers as null', { b: Infinity, a: NaN }, '{"a":null,"b":null}'],
    ['a lone surrogate escaped', { a: '\ud800' }, '{"a":"\\ud800"}'],
    ['undefined alone', undefined, 'null'],
    ['a function member as null', { b: () => 1, a: 1 }, '{"a":1,"b":null}'],
    ['a date as the rule writes it (no own keys)', { d: new Date(0) }, '{"d":{}}'],
    ['keys sorted by UTF-16 units', { é: 1, '😀': 2, z: 3, Z: 4, '': 5 }, '{"":5,"Z":4,"z":3,"é":1,"😀":2}'],
  ])('%s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
    expect(writeCanonical(value)).toBe(expected);
  });

  it('writes what the rule writes, for random values', () => {
    const random = seededRandom(7);
    for (let i = 0; i < 5000; i++) {
      const value = awkward(random, randomValue(random, 5));
      expect(canonicalJson(value)).toBe(writeCanonical(value));
    }
  });

  it('writes what the rule writes, for values read from JSON text with big integers and deep nesting', () => {
    const texts = ['{"b":{"y":[1,{"d":9007199254740993,"c":2}],"x":1},"a":-0.0}', `${'['.repeat(300)}{"b":1,"a":2}${']'.repeat(300)}`, '{"0":1,"01":2,"4294967295":3,"4294967294":4}'];
    for (const text of texts) {
      const read = parseJson(text, { maxDepth: Infinity });
      expect(read.ok).toBe(true);
      if (read.ok) expect(canonicalJson(read.value)).toBe(writeCanonical(read.value));
    }
  });
});
