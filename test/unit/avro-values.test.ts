/**
 * Avro values as JSON text: records encoded by the test's own writer (from the Avro
 * specification, not avsc) decoded by the reader, one case a type.
 */
import { describe, expect, it } from 'vitest';
import { avroRecordType, decodeRecords } from '../../src/sources/columnar/avro-file.js';
import { avroLine } from '../../src/sources/columnar/avro-values.js';
import { readLong } from '../../src/sources/columnar/avro-container.js';
import { type AvroSchema, encode, zigzag } from '../helpers/avro-writer.js';

function lineOf(type: AvroSchema, value: unknown): string {
  const schema = { type: 'record', name: 'row', fields: [{ name: 'v', type }] };
  const decoded = decodeRecords(avroRecordType(JSON.stringify(schema)), encode(schema, { v: value }), 1);
  return avroLine(['v'], decoded[0] as Record<string, unknown>);
}

const CASES: Array<[string, AvroSchema, unknown, string]> = [
  ['null', 'null', null, 'null'],
  ['boolean', 'boolean', true, 'true'],
  ['int', 'int', -42, '-42'],
  ['long beyond 2^53', 'long', 9007199254740993n, '9007199254740993'],
  ['long at its least', 'long', -(2n ** 63n), '-9223372036854775808'],
  ['double', 'double', 0.1, '0.1'],
  ['double NaN', 'double', Number.NaN, '"NaN"'],
  ['string', 'string', 'héllo "q"', '"héllo \\"q\\""'],
  ['bytes as base64', 'bytes', Buffer.from([0, 255, 65]), '"AP9B"'],
  ['fixed as base64', { type: 'fixed', name: 'f4', size: 4 }, Buffer.from([1, 2, 3, 4]), '"AQIDBA=="'],
  ['enum', { type: 'enum', name: 'e', symbols: ['A', 'B'] }, 'B', '"B"'],
  ['union with null, null', ['null', 'long'], null, 'null'],
  ['union with null, a value', ['null', 'long'], { branch: 1, value: 7n }, '7'],
  ['union of null and a string', ['null', 'string'], { branch: 1, value: 'x' }, '"x"'],
  ['timestamp-millis', { type: 'long', logicalType: 'timestamp-millis' }, 1704164645123n, '"2024-01-02T03:04:05.123Z"'],
  ['timestamp-micros', { type: 'long', logicalType: 'timestamp-micros' }, 1704164645123457n, '"2024-01-02T03:04:05.123457Z"'],
  ['timestamp-micros before 1970', { type: 'long', logicalType: 'timestamp-micros' }, -1n, '"1969-12-31T23:59:59.999999Z"'],
  ['timestamp-millis in a union', ['null', { type: 'long', logicalType: 'timestamp-millis' }], { branch: 1, value: 0n }, '"1970-01-01T00:00:00.000Z"'],
  ['date', { type: 'int', logicalType: 'date' }, 19849, '"2024-05-06"'],
  ['decimal bytes', { type: 'bytes', logicalType: 'decimal', precision: 10, scale: 2 }, Buffer.from([0xff, 0x85]), '-1.23'],
  ['decimal fixed', { type: 'fixed', name: 'd3', size: 3, logicalType: 'decimal', precision: 6, scale: 3 }, Buffer.from([0x01, 0xe2, 0x40]), '123.456'],
  ['uuid', { type: 'string', logicalType: 'uuid' }, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"'],
  ['union of several types, unwrapped', ['null', 'string', 'long'], { branch: 2, value: 5n }, '5'],
  [
    'union avsc cannot tell apart, wrapped by its branch',
    ['null', { type: 'record', name: 'a', fields: [{ name: 'x', type: 'int' }] }, { type: 'record', name: 'b', fields: [{ name: 'x', type: 'int' }] }],
    { branch: 2, value: { x: 1 } },
    '{"b":{"x":1}}',
  ],
  ['local-timestamp-millis: the wall clock, without a zone', { type: 'long', logicalType: 'local-timestamp-millis' }, 1704164645123n, '"2024-01-02T03:04:05.123"'],
  ['local-timestamp-micros: the wall clock, without a zone', { type: 'long', logicalType: 'local-timestamp-micros' }, 1704164645123457n, '"2024-01-02T03:04:05.123457"'],
  ['timestamp-nanos beyond 2^53', { type: 'long', logicalType: 'timestamp-nanos' }, 1704164645123456789n, '"2024-01-02T03:04:05.123456789Z"'],
  ['array', { type: 'array', items: 'long' }, [1n, 2n], '[1,2]'],
  ['map', { type: 'map', values: 'string' }, { a: 'x', b: 'y' }, '{"a":"x","b":"y"}'],
  ['map with a __proto__ key', { type: 'map', values: 'long' }, JSON.parse('{"__proto__": 1, "b": 2}'), '{"__proto__":1,"b":2}'],
  [
    'record with bytes and a long inside',
    {
      type: 'record',
      name: 'inner',
      fields: [
        { name: 'n', type: 'long' },
        { name: 'b', type: 'bytes' },
      ],
    },
    { n: 2n ** 60n, b: Buffer.from('hi') },
    '{"n":1152921504606846976,"b":"aGk="}',
  ],
];

describe('Avro values as JSON', () => {
  it.each(CASES)('%s', (_name, type, value, expected) => {
    expect(lineOf(type, value)).toBe(`{"v":${expected}}`);
  });

  it('keeps bytes of a string that are not UTF-8 as a mark (a lone surrogate), never a replacement character', () => {
    const line = lineOf('string', Buffer.from([0xff, 0x41]));
    expect(line).not.toContain('\ufffd');
    expect(JSON.parse(line).v).toMatch(/[\ud800-\udfff]A$/);
  });

  it('refuses a block whose bytes run out before its records do', () => {
    const schema = { type: 'record', name: 'row', fields: [{ name: 'v', type: 'string' }] };
    expect(() => decodeRecords(avroRecordType(JSON.stringify(schema)), encode(schema, { v: 'x' }), 2)).toThrow('record 2 of 2');
  });
});

describe('readLong', () => {
  it.each([0, 1, -1, 63, -64, 64, 2 ** 40, -(2 ** 40)])('reads %d as the writer wrote it', (n) => {
    expect(readLong(zigzag(n), 0)).toEqual({ value: n, next: zigzag(n).length });
  });
  it('is undefined when the bytes end inside it', () => {
    expect(readLong(Buffer.from([0x80]), 0)).toBeUndefined();
  });
});
