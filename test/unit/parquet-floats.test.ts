/** parquet-floats.ts: FLOAT values found by schema in the shapes hyparquet assembles, written as float32 numerals. */
import { describe, expect, it } from 'vitest';
import { writeValue } from '../../src/sources/columnar/columnar-values.js';
import { floatFixes } from '../../src/sources/columnar/parquet-floats.js';
import type { SchemaElement } from '../../src/sources/columnar/parquet-schema.js';

const f = Math.fround(0.1);
const root = (children: number): SchemaElement => ({ name: 'schema', num_children: children });

const CASES: Array<{ name: string; schema: SchemaElement[]; cell: unknown; written: string | undefined }> = [
  { name: 'a top-level FLOAT', schema: [root(1), { name: 'c', type: 'FLOAT' }], cell: f, written: '0.1' },
  { name: 'a DOUBLE is left alone', schema: [root(1), { name: 'c', type: 'DOUBLE' }], cell: f, written: undefined },
  {
    name: 'a three-level LIST',
    schema: [root(1), { name: 'c', num_children: 1, converted_type: 'LIST' }, { name: 'list', num_children: 1, repetition_type: 'REPEATED' }, { name: 'element', type: 'FLOAT' }],
    cell: [f, null],
    written: '[0.1,null]',
  },
  {
    name: 'a two-level LIST (a repeated FLOAT inside)',
    schema: [root(1), { name: 'c', num_children: 1, converted_type: 'LIST' }, { name: 'array', type: 'FLOAT', repetition_type: 'REPEATED' }],
    cell: [f],
    written: '[0.1]',
  },
  { name: 'a repeated FLOAT outside a LIST', schema: [root(1), { name: 'c', type: 'FLOAT', repetition_type: 'REPEATED' }], cell: [f, f], written: '[0.1,0.1]' },
  {
    name: "a MAP's values",
    schema: [
      root(1),
      { name: 'c', num_children: 1, converted_type: 'MAP' },
      { name: 'key_value', num_children: 2, repetition_type: 'REPEATED' },
      { name: 'key', type: 'BYTE_ARRAY' },
      { name: 'value', type: 'FLOAT' },
    ],
    cell: { k: f },
    written: '{"k":0.1}',
  },
  {
    name: "a struct's FLOAT fields, a DOUBLE beside them as it is",
    schema: [root(1), { name: 'c', num_children: 2 }, { name: 'x', type: 'FLOAT' }, { name: 'd', type: 'DOUBLE' }],
    cell: { x: f, d: f },
    written: `{"x":0.1,"d":${f}}`,
  },
  { name: 'a VARIANT is not walked', schema: [root(1), { name: 'c', num_children: 1, logical_type: { type: 'VARIANT' } }, { name: 'value', type: 'FLOAT' }], cell: { value: f }, written: undefined },
];

describe('floatFixes', () => {
  it.each(CASES)('$name', ({ schema, cell, written }) => {
    const fix = floatFixes(schema).get('c');
    expect(fix === undefined ? undefined : writeValue(fix(cell))).toBe(written);
  });

  it('leaves nulls as they are', () => {
    const fix = floatFixes([root(1), { name: 'c', num_children: 1 }, { name: 'x', type: 'FLOAT' }]).get('c')!;
    expect(fix(null)).toBeNull();
    expect(writeValue(fix({ x: null }))).toBe('{"x":null}');
  });
});
