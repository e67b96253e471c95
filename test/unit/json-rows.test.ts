import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/events/build-event.js';
import { canonicalJson } from '../../src/json/canonical-json.js';
import { buildNameMap } from '../../src/events/name-map.js';
import { applyJsonColumns, valueAtPath } from '../../src/sources/json-columns.js';
import { jsonlItems, toJsonItem } from '../../src/sources/jsonl-source.js';
import { LineSplitter, type OverlongLine, type TextLine } from '../../src/sources/line-splitter.js';
import { mapMixpanel } from '../../src/sources/vendors/mixpanel.js';
import { mapPostHog } from '../../src/sources/vendors/posthog.js';
import { mapAmplitude } from '../../src/sources/vendors/amplitude.js';
import { detectDelimiter } from '../../src/stage-sources/file-reading.js';

const rules = { nameMap: buildNameMap(), nowMs: Date.parse('2026-01-01T00:00:00Z') };

function item(text: string) {
  return toJsonItem({ line: 3, text });
}

/** A line's staged event (properties as staged text), or its problem. */
function staged(text: string) {
  const read = item(text);
  if (read === undefined || 'problem' in read) return read?.problem;
  const outcome = buildEvent(read.candidate, rules);
  return outcome.type === 'event' ? outcome.event : outcome;
}

describe('JSON lines read exactly', () => {
  it('keeps integers beyond 2^53: two ids one apart stay two users, and the digits reach the staged properties', () => {
    const a = staged('{"event":"e","distinct_id":9007199254740993,"timestamp":"2025-01-01T00:00:00Z","properties":{"account":18446744073709551615}}');
    const b = staged('{"event":"e","distinct_id":9007199254740992,"timestamp":"2025-01-01T00:00:00Z"}');
    expect(a).toMatchObject({ distinctId: '9007199254740993', propertiesJson: '{"account":18446744073709551615}' });
    expect(b).toMatchObject({ distinctId: '9007199254740992' });
  });

  it('an epoch time as a big integer is read as one (and refused as too large, not mangled)', () => {
    expect(staged('{"event":"e","distinct_id":"u","timestamp":99999999999999999999}')).toMatchObject({ problem: { reason: 'bad_timestamp' } });
  });

  it('canonical JSON (the identity of derived uuids) writes a BigInt as its digits', () => {
    expect(canonicalJson({ b: 9007199254740993n, a: [1n] })).toBe('{"a":[1],"b":9007199254740993}');
  });

  it.each<[string, string, string, RegExp]>([
    ['{"event":"e","properties":{"x":"\\ud800x"}}', 'invalid_unicode', 'properties.x', /lone UTF-16 surrogate/],
    ['{"event":"e","properties":{"n":1e400}}', 'number_out_of_range', 'properties.n', /beyond the range of a 64-bit float/],
    ['{"event":"e","properties":{"n":-1e400}}', 'number_out_of_range', 'properties.n', /PostHog cannot keep it/],
    ['{"event":', 'bad_json', '', /^not valid JSON: the text ends/],
    ['{"event":"e"} x', 'bad_json', '', /unexpected character 'x' at column 15/],
  ])('%s is a %s problem of %s', (text, reason, field, message) => {
    expect(item(text)).toMatchObject({ line: 3, raw: text, problem: { reason, field, message: expect.stringMatching(message) } });
  });

  it('refuses lines nested deeper than properties may be, without recursion, even 200,000 levels', () => {
    const deep = `{"event":"e","properties":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    expect(item(deep)).toMatchObject({ problem: { reason: 'too_deep', field: expect.stringMatching(/^properties\[0\]/), message: expect.stringContaining('nests 200001 levels deep') } });
    const nest = (levels: number): string => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
    // The properties object is level 2 of the line: 124 levels of properties are staged, 125 are not.
    expect(staged(`{"event":"e","distinct_id":"u","timestamp":"2025-01-01T00:00:00Z","properties":${nest(124)}}`)).toMatchObject({ event: 'e' });
    expect(staged(`{"event":"e","distinct_id":"u","timestamp":"2025-01-01T00:00:00Z","properties":${nest(125)}}`)).toMatchObject({ reason: 'too_deep' });
    // A top-level field becomes a property at its own level: 124 levels in the line are 124 staged.
    expect(staged(`{"event":"e","distinct_id":"u","timestamp":"2025-01-01T00:00:00Z","x":${nest(123)}}`)).toMatchObject({ event: 'e' });
    expect(staged(`{"event":"e","distinct_id":"u","timestamp":"2025-01-01T00:00:00Z","x":${nest(124)}}`)).toMatchObject({ problem: { reason: 'too_deep', field: 'properties' } });
  });

  it('__proto__ and constructor are keys like any other, at the top level and in properties', () => {
    const event = staged('{"event":"e","distinct_id":"u","timestamp":"2025-01-01T00:00:00Z","__proto__":{"x":1},"properties":{"constructor":2}}');
    expect(event).toMatchObject({ propertiesJson: '{"constructor":2,"__proto__":{"x":1}}' });
    const mixpanel = mapMixpanel({ event: 'e', properties: { time: 1, distinct_id: 'u', ['__proto__']: 'p', constructor: 'c' } } as never);
    expect(Object.keys((mixpanel as { properties: object }).properties)).toEqual(expect.arrayContaining(['__proto__', 'constructor']));
  });

  it('Mixpanel, PostHog and Amplitude keep source keys named __proto__', () => {
    const record = JSON.parse('{"event":"e","distinct_id":"u","uuid":"0190d3b4-0000-7000-8000-000000000001","timestamp":"2025-01-01T00:00:00Z","properties":"{\\"__proto__\\":1}"}');
    expect(Object.hasOwn((mapPostHog(record) as { properties: object }).properties, '__proto__')).toBe(true);
    const amplitude = JSON.parse(
      '{"event_type":"e","user_id":"u","event_time":"2025-01-01 00:00:00","user_properties":{"__proto__":1},"groups":{"__proto__":["k"],"company":123456789012345678n}}'.replace(
        '123456789012345678n',
        '1',
      ),
    );
    const mapped = mapAmplitude(amplitude) as unknown as { properties: { $set: object; $groups: object } };
    expect(Object.hasOwn(mapped.properties.$set, '__proto__')).toBe(true);
    expect(Object.hasOwn(mapped.properties.$groups, '__proto__')).toBe(true);
  });

  it('PostHog properties held as JSON text are read exactly too', () => {
    expect(mapPostHog({ event: 'e', properties: '{"id":9007199254740993}' })).toMatchObject({ properties: { id: 9007199254740993n } });
    expect(mapPostHog({ event: 'e', properties: '{"s":"\\udc00"}' })).toMatchObject({ reason: 'invalid_unicode', field: 'properties.s' });
  });
});

describe('--column for JSON sources', () => {
  it.each<[unknown, string, unknown]>([
    [{ a: { b: { c: 1 } } }, 'a.b.c', 1],
    [{ 'a.b': 2, a: { b: 3 } }, 'a.b', 2],
    [{ list: [{ id: 'x' }] }, 'list.0.id', 'x'],
    [{ a: 1 }, 'a.b', undefined],
    [{ a: {} }, 'a.toString', undefined],
  ])('%j at %s is %j', (record, path, value) => {
    expect(valueAtPath(record, path)).toEqual(value);
  });

  it('reads the roles from their paths; a top-level role field is no longer a property, its default name is one', () => {
    const map = jsonlItems({ columns: { distinct_id: 'user_id', timestamp: 'meta.ts', event: 'name' } });
    const read = map({ line: 1, text: '{"name":"signup","user_id":42,"meta":{"ts":"2025-01-01T00:00:00Z"},"event":"ignored"}' });
    expect(read).toMatchObject({
      candidate: {
        event: 'signup',
        distinctId: 42,
        timestamp: '2025-01-01T00:00:00Z',
        properties: { meta: { ts: '2025-01-01T00:00:00Z' }, event: 'ignored' },
        fieldNames: { distinctId: 'user_id', timestamp: 'meta.ts' },
      },
    });
    expect(Object.keys((read as { candidate: { properties: object } }).candidate.properties).sort()).toEqual(['event', 'meta']);
  });

  it("a uuid path with nothing there leaves the format's own uuid", () => {
    const candidate = { event: 'e', distinctId: 'u', timestamp: 1, uuid: 'mine', properties: {}, identity: '' };
    expect(applyJsonColumns(candidate, {}, { uuid: 'nope' })).toMatchObject({ uuid: 'mine' });
    expect(applyJsonColumns(candidate, { id: 'x' }, { uuid: 'id' })).toMatchObject({ uuid: 'x', fieldNames: { uuid: 'id' } });
  });
});

describe('LineSplitter line ends', () => {
  it('ends lines at LF, CRLF (once) and a lone CR, wherever the text is cut', () => {
    const text = 'a\r\nb\rc\n\rd\r';
    for (const size of [1, 2, 100]) {
      const splitter = new LineSplitter();
      const out: Array<TextLine | OverlongLine> = [];
      for (let i = 0; i < text.length; i += size) splitter.push(text.slice(i, i + size), out);
      splitter.end(out);
      expect(out).toEqual([
        { line: 1, text: 'a' },
        { line: 2, text: 'b' },
        { line: 3, text: 'c' },
        { line: 4, text: '' },
        { line: 5, text: 'd' },
      ]);
    }
  });

  it('an overlong line is a too_large problem', () => {
    expect(toJsonItem({ line: 9, overlong: true, head: '{"a"', chars: 2_000_000 })).toMatchObject({ line: 9, raw: '{"a"', problem: { reason: 'too_large' } });
  });
});

describe('CSV delimiter detection', () => {
  it.each<[string, string]>([
    ['event,distinct_id,timestamp\n', ','],
    ['event;distinct_id;timestamp\r\n1;2;3', ';'],
    ['event\tdistinct_id\ttimestamp', '\t'],
    ['event|distinct_id|timestamp\n', '|'],
    ['"a;b",c,d\n', ','],
    ['"a,b";"c";"d"\n', ';'],
    ['single\n', ','],
    ['a;b,c\n', ','],
    ['\n\nx|y|z\n', '|'],
    ['', ','],
  ])('%j splits best on %j', (head, delimiter) => {
    expect(detectDelimiter(head)).toBe(delimiter);
  });
});
