import { describe, expect, it } from 'vitest';
import { LineSplitter, type OverlongLine, type TextLine } from '../../src/sources/line-splitter.js';
import { toJsonItem } from '../../src/sources/jsonl-source.js';

function item(text: string) {
  return toJsonItem({ line: 3, text });
}

describe('JSON lines', () => {
  it('takes distinct_id from the top level first, then from properties', () => {
    expect(item('{"event":"e","distinct_id":"top","properties":{"distinct_id":"inner"},"timestamp":"t"}')).toMatchObject({ candidate: { distinctId: 'top' } });
    expect(item('{"event":"e","properties":{"distinct_id":"inner"},"timestamp":"t"}')).toMatchObject({
      candidate: { distinctId: 'inner', fieldNames: { distinctId: 'properties.distinct_id' } },
    });
  });

  it('moves other top-level fields into properties and drops keys and capture-time fields', () => {
    const result = item('{"event":"e","distinct_id":"d","timestamp":"t","$set":{"a":1},"ip":"1.2.3.4","api_key":"phc_x","token":"t","sent_at":"s","offset":5}');
    expect(result).toMatchObject({ candidate: { properties: { $set: { a: 1 }, ip: '1.2.3.4' } } });
    const props = (result as { candidate: { properties: object } }).candidate.properties;
    expect(Object.keys(props).sort()).toEqual(['$set', 'ip']);
  });

  it.each<[string, string]>([
    ['{"event":', 'bad_json'],
    ['[1,2]', 'bad_json'],
    ['"text"', 'bad_json'],
    ['{"event":"e","properties":[1]}', 'bad_properties'],
    ['{"event":"e","ip":"a","properties":{"ip":"b"}}', 'duplicate_property'],
  ])('%s is a %s problem', (text, reason) => {
    expect(item(text)).toMatchObject({ line: 3, problem: { reason } });
  });

  it('skips blank lines', () => {
    expect(item('   ')).toBeUndefined();
  });
});

describe('LineSplitter', () => {
  it('numbers lines across chunks, strips CR and BOM, reports overlong lines without keeping them', () => {
    const splitter = new LineSplitter(10);
    const out: Array<TextLine | OverlongLine> = [];
    for (const chunk of ['\ufeffab\r\ncd', '\n0123456', '789abcdef', 'gh\nlast']) splitter.push(chunk, out);
    splitter.end(out);
    expect(out).toEqual([
      { line: 1, text: 'ab' },
      { line: 2, text: 'cd' },
      { line: 3, overlong: true, head: '0123456789abcdef', chars: 18 },
      { line: 4, text: 'last' },
    ]);
  });
});
