import { describe, expect, it } from 'vitest';
import { tableItems } from '../../src/sources/columnar/table-rows.js';
import type { ReaderOptions } from '../../src/sources/source-item.js';

function read(lines: Array<Record<string, unknown>>, options: Partial<ReaderOptions> = {}) {
  const mapper = tableItems({ displayName: 't.parquet', ...options });
  return lines.map((object, i) => mapper({ line: i + 1, text: JSON.stringify(object) }));
}

describe('a table row as an event (--from parquet)', () => {
  it.each([
    [
      'the standard columns, the rest properties, nulls left out',
      { event: 'e', distinct_id: 'u', timestamp: 't', plan: 'pro', n: null },
      {},
      { event: 'e', distinctId: 'u', timestamp: 't', properties: { plan: 'pro' } },
    ],
    ['columns found ignoring case', { Event: 'e', DISTINCT_ID: 'u', Timestamp: 't' }, {}, { event: 'e', distinctId: 'u', timestamp: 't', properties: {} }],
    [
      '--column renames',
      { name: 'e', user: 'u', at: 't', event: 'kept' },
      { columns: { event: 'name', distinct_id: 'user', timestamp: 'at' } },
      { event: 'e', distinctId: 'u', properties: { event: 'kept' } },
    ],
    ['properties as JSON text', { event: 'e', distinct_id: 'u', timestamp: 't', properties: '{"a":1}' }, {}, { properties: { a: 1 } }],
    ['properties as a record', { event: 'e', distinct_id: 'u', timestamp: 't', properties: { a: [1] } }, {}, { properties: { a: [1] } }],
    ['a uuid column', { event: 'e', distinct_id: 'u', timestamp: 't', uuid: 'x' }, {}, { uuid: 'x' }],
  ])('%s', (_name, row, options, expected) => {
    const [item] = read([row], options as Partial<ReaderOptions>);
    expect(item).toMatchObject({ line: 1, candidate: expected });
  });

  it.each([
    ['a property both a column and in properties', { event: 'e', distinct_id: 'u', timestamp: 't', a: 1, properties: '{"a":2}' }, 'duplicate_property'],
    ['properties not an object', { event: 'e', distinct_id: 'u', timestamp: 't', properties: 5 }, 'bad_properties'],
    ['properties text not JSON', { event: 'e', distinct_id: 'u', timestamp: 't', properties: '{' }, 'bad_properties'],
  ])('rejects %s', (_name, row, reason) => {
    expect(read([row])[0]).toMatchObject({ problem: { reason } });
  });

  it('refuses a table without the required columns, naming them', () => {
    expect(() => read([{ name: 'e' }])).toThrow(/t\.parquet: the table has no "event", "distinct_id", "timestamp" column/);
  });
});
