import { describe, expect, it } from 'vitest';
import {
  bigEndianInteger,
  decimalNumeral,
  escapeKey,
  ExactNumeral,
  isoDate,
  isoTime,
  jsonCell,
  RawJson,
  textValue,
  unescapeKey,
  writeRow,
  writeValue,
} from '../../src/sources/columnar/columnar-values.js';
import { locateInRowGroup, rowGroupOf } from '../../src/sources/columnar/row-group-items.js';
import { problem } from '../../src/events/reject-reasons.js';

describe('isoTime', () => {
  it.each([
    [1704164645123n, 'ms', '2024-01-02T03:04:05.123Z'],
    [1704164645123456n, 'us', '2024-01-02T03:04:05.123456Z'],
    [1704164645123456789n, 'ns', '2024-01-02T03:04:05.123456789Z'],
    [0n, 'us', '1970-01-01T00:00:00.000000Z'],
    [-1n, 'ms', '1969-12-31T23:59:59.999Z'],
    [-1500000n, 'us', '1969-12-31T23:59:58.500000Z'],
    [10n ** 25n, 'ms', '10000000000000000000000000'],
  ] as const)('%s %s is %s', (count, unit, text) => {
    expect(isoTime(count, unit)).toBe(text);
  });
});

describe('decimals', () => {
  it.each([
    [12345n, 2, '123.45'],
    [-12345n, 2, '-123.45'],
    [5n, 3, '0.005'],
    [-5n, 3, '-0.005'],
    [12345678901234567890125n, 3, '12345678901234567890.125'],
    [42n, 0, '42'],
    [42n, -2, '4200'],
  ])('%s at scale %s is %s', (unscaled, scale, text) => {
    expect(decimalNumeral(unscaled, scale)).toBe(text);
  });

  it.each([
    [[], 0n],
    [[0x01, 0x00], 256n],
    [[0xff], -1n],
    [[0xff, 0x00], -256n],
    [[0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], 2n ** 71n - 1n],
  ])('big-endian bytes %j are %s', (bytes, value) => {
    expect(bigEndianInteger(Uint8Array.from(bytes))).toBe(value);
  });
});

describe('jsonCell', () => {
  it.each([
    ['{\n "plan": "pro"\n}', '{"plan":"pro"}'],
    ['[1,\r\n2]', '[1,2]'],
    ['{ "a b": "x\\" y" }', '{"a b":"x\\" y"}'],
    ['{"a": "x\n"}', '"{\\"a\\": \\"x\\n\\"}"'],
    ['12345678901234567890', '12345678901234567890'],
    ['{"__proto__": 1}', '{"__proto__":1}'],
    ['1,"distinct_id":"someone-else"', '"1,\\"distinct_id\\":\\"someone-else\\""'],
    ['not json {', '"not json {"'],
    ['', '""'],
  ])('%j is written as %s', (text, written) => {
    expect(writeValue(jsonCell(text))).toBe(written);
  });
});

describe('__proto__ keys', () => {
  it.each(['__proto__', '\u0000__proto__', '\u0000\u0000__proto__', 'x__proto__', 'plain'])('%j escapes and unescapes to itself', (key) => {
    expect(unescapeKey(escapeKey(key))).toBe(key);
    expect(escapeKey(key) === key).toBe(!/^\0*__proto__$/.test(key));
  });

  it('writes a key-like text as its own text, as a value and as a key', () => {
    const map: Record<string, unknown> = {};
    map[String(textValue('__proto__'))] = textValue('__proto__');
    expect(writeValue(map)).toBe('{"__proto__":"__proto__"}');
  });
});

describe('writeValue', () => {
  it.each([
    ['a string', 'a "q"', '"a \\"q\\""'],
    ['a 64-bit integer', 9007199254740993n, '9007199254740993'],
    ['a decimal numeral', new ExactNumeral('123.450'), '123.450'],
    ['JSON text', new RawJson('{"a":[1,2]}'), '{"a":[1,2]}'],
    ['NaN, never null', Number.NaN, '"NaN"'],
    ['-Infinity', -Infinity, '"-Infinity"'],
    ['null', null, 'null'],
    ['undefined', undefined, 'null'],
    ['UTF-8 bytes', Uint8Array.from([0x68, 0xc3, 0xa9]), '"hé"'],
    ['bytes not UTF-8 (base64: unannotated bytes are data)', Uint8Array.from([0xff]), '"/w=="'],
    ['a list with nulls', [1, null, 'x'], '[1,null,"x"]'],
    ['a typed array', Int32Array.from([1, 2]), '[1,2]'],
    ['a record', { a: 1n, b: { c: [true] } }, '{"a":1,"b":{"c":[true]}}'],
    ['a map', new Map([['k', 1]]), '{"k":1}'],
    ['a date', new Date(0), '"1970-01-01T00:00:00.000Z"'],
  ])('%s', (_name, value, text) => {
    expect(writeValue(value)).toBe(text);
  });

  it('writes every column of a row, in order, null ones too', () => {
    expect(writeRow(['b', 'a', 'c'], ['x', 1])).toBe('{"b":"x","a":1,"c":null}');
    expect(isoDate(19849)).toBe('2024-05-06');
  });
});

describe('rows in row groups', () => {
  it.each([
    [1, { group: 1, rowInGroup: 1 }],
    [2048, { group: 1, rowInGroup: 2048 }],
    [2049, { group: 2, rowInGroup: 1 }],
    [5000, { group: 3, rowInGroup: 904 }],
  ])('row %s', (row, where) => {
    expect(rowGroupOf([2048, 2048, 904], row)).toEqual(where);
  });

  it('names the row group in a reject, and bad bytes as what they are', () => {
    const options = { rowGroupRows: [10, 10] };
    expect(locateInRowGroup(options, 12, problem('missing_event', 'event', 'no event')).message).toBe('no event (row group 2 of 2, row 2 of it)');
    expect(locateInRowGroup(options, 3, problem('invalid_unicode', 'name', 'lone surrogate'))).toMatchObject({ reason: 'invalid_utf8', field: 'name' });
    expect(locateInRowGroup({}, 3, problem('missing_event', 'event', 'no event')).message).toBe('no event');
  });
});
