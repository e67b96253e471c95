import { describe, expect, it } from 'vitest';
import { eventJson } from '../../src/delivery/event-encoding.js';
import { parseJsonCarefully } from '../../src/json/careful-json-parser.js';
import { distinctIdText, exactIntegerOfText } from '../../src/json/json-numbers.js';
import { stringifyJson } from '../../src/json/json-writer.js';
import { parseJson } from '../../src/json/read-json.js';
import { randomValue, seededRandom } from '../helpers/random-json.js';

describe('stringifyJson', () => {
  it('writes what JSON.stringify writes for values without BigInts', () => {
    const random = seededRandom(21);
    const odd = { a: undefined, b: [undefined, () => 1, Symbol('s')], c: new Date(0), d: -0, e: NaN, f: Infinity, g: 'x\u2028\ud800' };
    expect(stringifyJson(odd)).toBe(JSON.stringify(odd));
    expect(stringifyJson(undefined)).toBeUndefined();
    for (let i = 0; i < 2000; i++) {
      const value = randomValue(random);
      expect(stringifyJson(value)).toBe(JSON.stringify(value));
    }
  });

  it('writes BigInts as their digits, wherever they are', () => {
    const value = { a: 1n, b: [2n, { c: -9223372036854775808n }], d: undefined, e: new Date(0), f: 'x' };
    expect(stringifyJson(value)).toBe('{"a":1,"b":[2,{"c":-9223372036854775808}],"e":"1970-01-01T00:00:00.000Z","f":"x"}');
    expect(stringifyJson(18446744073709551615n)).toBe('18446744073709551615');
  });

  it('round-trips texts holding big integers, in source order', () => {
    const random = seededRandom(22);
    const bigs = ['9007199254740993', '-9223372036854775808', '18446744073709551615', '12345678901234567890'];
    for (let i = 0; i < 500; i++) {
      const text = JSON.stringify(randomValue(random)).replace(/(?<=[:,[])(?:42|-1)(?=[,\]}])/g, () => bigs[Math.floor(random() * bigs.length)]!);
      const fast = parseJson(text);
      expect(fast).toEqual(parseJsonCarefully(text));
      if (!fast.ok) throw new Error(fast.problem.message);
      const written = stringifyJson(fast.value)!;
      expect(parseJson(written)).toEqual(fast);
      for (const big of bigs) expect(written.split(big).length).toBe(text.split(big).length);
    }
  });

  it('stages exact digits that the event encoder sends unchanged', () => {
    const read = parseJson('{"order_id":9007199254740995,"nested":{"ids":[18446744073709551615]},"price":1.10}');
    if (!read.ok) throw new Error(read.problem.message);
    const propertiesJson = stringifyJson(read.value)!;
    expect(propertiesJson).toBe('{"order_id":9007199254740995,"nested":{"ids":[18446744073709551615]},"price":1.1}');
    const sent = eventJson({ seq: 1, uuid: '0190a0b0-0000-7000-8000-000000000000', kind: 0, event: 'e', distinctId: '9007199254740993', timestampMs: 0, propertiesJson });
    const received = parseJson(sent);
    expect(received).toMatchObject({ ok: true, value: { distinct_id: '9007199254740993', properties: { order_id: 9007199254740995n, nested: { ids: [18446744073709551615n] } } } });
  });
});

describe('distinctIdText', () => {
  it.each<[unknown, string | undefined]>([
    ['user_1', 'user_1'],
    ['', ''],
    [42, '42'],
    [1.5, '1.5'],
    [-0, '0'],
    [9007199254740993n, '9007199254740993'],
    [18446744073709551615n, '18446744073709551615'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
    [NaN, undefined],
    [null, undefined],
    [true, undefined],
    [{}, undefined],
    [[1], undefined],
  ])('%s -> %s', (value, expected) => {
    expect(distinctIdText(value)).toBe(expected);
  });

  it('keeps the exact digits of a numeric distinct_id read from JSON', () => {
    const read = parseJson('{"distinct_id":9007199254740993}');
    expect(read.ok && distinctIdText((read.value as Record<string, unknown>).distinct_id)).toBe('9007199254740993');
  });
});

describe('exactIntegerOfText (CSV digit cells)', () => {
  it.each<[string, bigint | undefined]>([
    ['9007199254740993', 9007199254740993n],
    ['-9223372036854775808', -9223372036854775808n],
    ['18446744073709551615', 18446744073709551615n],
    ['18446744073709551616', undefined],
    ['42', undefined],
    ['9007199254740991', undefined],
    ['09007199254740993', undefined],
    ['+9007199254740993', undefined],
    ['9007199254740993.0', undefined],
    ['9007199254740993 ', undefined],
    ['1e20', undefined],
  ])('%s -> %s', (text, expected) => {
    expect(exactIntegerOfText(text)).toBe(expected);
  });
});
