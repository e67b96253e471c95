import { describe, expect, it } from 'vitest';
import { csvRecordToCandidate, inferCell, readCsvHeader, type CsvColumns } from '../../src/sources/csv-columns.js';

function columns(header: string[], renames = {}): CsvColumns {
  const result = readCsvHeader(header, renames);
  if (typeof result === 'string') throw new Error(result);
  return result;
}

describe('readCsvHeader', () => {
  it.each<[string[], RegExp]>([
    [['event', 'distinct_id'], /no "timestamp" column/],
    [['name', 'user', 'time'], /no "event", "distinct_id", "timestamp" column/],
    [['event', 'event', 'distinct_id', 'timestamp'], /names column "event" twice/],
    [['event', '', 'distinct_id', 'timestamp'], /column 2 of the header has no name/],
  ])('%j is refused', (header, message) => {
    expect(readCsvHeader(header)).toMatch(message);
  });

  it('trims header names and accepts renamed roles', () => {
    const c = columns([' name ', 'user_id', 'time', 'plan'], { event: 'name', distinct_id: 'user_id', timestamp: 'time' });
    expect(c).toMatchObject({ event: 0, distinctId: 1, timestamp: 2, uuid: -1, properties: -1, extras: [{ index: 3, name: 'plan' }] });
    expect(c.fieldNames).toMatchObject({ distinctId: 'user_id' });
  });
});

describe('inferCell', () => {
  it.each<[string, unknown]>([
    ['42', 42],
    ['-3.5', -3.5],
    ['007', '007'],
    ['1e5', '1e5'],
    ['12345678901234567890', 12345678901234567890n],
    ['9007199254740993', 9007199254740993n],
    ['-9223372036854775808', -9223372036854775808n],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
    ['1e400', '1e400'],
    ['0x1F', '0x1F'],
    ['true', true],
    ['False', 'False'],
    ['abc', 'abc'],
    ['1.50', '1.50'],
  ])('%s -> %s', (text, value) => {
    expect(inferCell(text)).toEqual(value);
  });
});

describe('csvRecordToCandidate', () => {
  const c = columns(['event', 'distinct_id', 'timestamp', 'uuid', 'price', 'note', 'properties']);
  const record = (fields: string[]) => ({ line: 7, fields, raw: fields.join(',') });

  it('turns other columns into properties, leaves empty cells out, merges the JSON column', () => {
    const candidate = csvRecordToCandidate(c, record(['buy', 'u1', '2025-01-01T00:00:00Z', '', '9.5', '', '{"a":{"b":1}}']), true);
    expect(candidate).toMatchObject({ event: 'buy', distinctId: 'u1', uuid: '', properties: { price: 9.5, a: { b: 1 } } });
    expect('note' in (candidate as { properties: object }).properties).toBe(false);
  });

  it('keeps text when inference is off', () => {
    expect(csvRecordToCandidate(c, record(['buy', 'u1', 't', '', '9.5', '', '']), false)).toMatchObject({ properties: { price: '9.5' } });
  });

  it.each<[string[], string, string]>([
    [['buy', 'u1', 't', '', '1', '', '[1]'], 'bad_properties', 'properties'],
    [['buy', 'u1', 't', '', '1', '', '{oops'], 'bad_properties', 'properties'],
    [['buy', 'u1', 't', '', '1', '', '{"price":2}'], 'duplicate_property', 'properties'],
    [['buy', 'u1', 't'], 'bad_csv', ''],
  ])('%j is a %s problem', (fields, reason, field) => {
    expect(csvRecordToCandidate(c, record(fields), true)).toMatchObject({ reason, field });
  });

  it('identity ignores column order and empty cells', () => {
    const other = columns(['note', 'properties', 'price', 'uuid', 'timestamp', 'distinct_id', 'event']);
    const a = csvRecordToCandidate(c, record(['buy', 'u1', 't', '', '1', '', '']), true);
    const b = csvRecordToCandidate(other, record(['', '', '1', '', 't', 'u1', 'buy']), true);
    expect((a as { identity: string }).identity).toBe((b as { identity: string }).identity);
  });
});
