/** The per-event size limit's bound: never more than the text of any JSON that parses to the value. */
import { describe, expect, it } from 'vitest';
import { checkCapture } from '../../src/sandbox/capture/capture-parse.js';
import { jsonBytesAtLeast, noEventOverLimit } from '../../src/sandbox/capture/event-size.js';

describe('jsonBytesAtLeast', () => {
  it.each([
    ['minimal ASCII JSON: exactly its text', '{"a":1,"b":[true,false,null,"x"],"c":{},"d":[]}', 'exact'],
    ['numbers written long', '{"n":1.000e+2,"m":-0.0000}', 'less'],
    ['escapes', '{"s":"\\u0041\\n\\"\\\\","\\u006b":"\\ud83d\\ude00"}', 'less'],
    ['UTF-8 text', '{"é":"中文 😀 ü"}', 'less'],
    ['spaces', '{ "a" : [ 1 , 2 ] }', 'less'],
    ['a key given twice', '{"a":"long value","a":1}', 'less'],
    ['empty', '[]', 'exact'],
  ])('%s', (_name, text, expected) => {
    const least = jsonBytesAtLeast(JSON.parse(text));
    const bytes = Buffer.byteLength(text);
    if (expected === 'exact') expect(least).toBe(bytes);
    else expect(least).toBeLessThan(bytes);
  });
});

describe('noEventOverLimit', () => {
  const event = (i: number, extra = '') => ({ event: 'e', distinct_id: `u${i}`, properties: { note: `ü${'x'.repeat(300)}${extra}` } });

  it('settles a large body of ordinary events without the scan, and agrees with it', () => {
    const events = Array.from({ length: 3000 }, (_, i) => event(i));
    const text = JSON.stringify({ api_key: 'phc_a', batch: events });
    expect(Buffer.byteLength(text)).toBeGreaterThan(500_000);
    expect(noEventOverLimit(Buffer.byteLength(text), events, 1_000_000)).toBe(true);
    expect(checkCapture(text)).toEqual({ token: 'phc_a', historicalMigration: false, eventCount: 3000 });
  });

  it('leaves a body with one large event to the scan, which finds it', () => {
    const events = [event(0), event(1, 'y'.repeat(1_000_000)), event(2)];
    const text = JSON.stringify({ api_key: 'phc_a', batch: events });
    expect(noEventOverLimit(Buffer.byteLength(text), events, 1_000_000)).toBe(false);
    expect(checkCapture(text)).toMatchObject({ eventCount: 3, tooBigAt: 1 });
  });
});
