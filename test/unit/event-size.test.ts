/** The per-event size limit's bound: never more than the text of any JSON that parses to the value. */
import { describe, expect, it } from 'vitest';
import { checkCapture } from '../../src/sandbox/capture/capture-parse.js';
import { noEventOverLimit } from '../../src/sandbox/capture/event-size.js';
import { readJson, type JsonRead } from '../../src/sandbox/capture/json-read.js';

function read(text: string): JsonRead {
  const result = readJson(Buffer.from(text), text);
  if ('readProblem' in result) throw new Error(result.readProblem);
  return result;
}

describe('the least text of a parsed body (readJson)', () => {
  it.each([
    ['minimal ASCII JSON: exactly its text', '{"a":1,"b":[true,false,null,"x"],"c":{},"d":[]}', 'exact'],
    ['an array', '[1,"ab",[]]', 'exact'],
    ['numbers written long', '{"n":1.000e+2,"m":-0.0000}', 'less'],
    ['escapes', '{"s":"\\u0041\\n\\"\\\\","\\u006b":"\\ud83d\\ude00"}', 'less'],
    ['UTF-8 text', '{"é":"中文 😀 ü"}', 'less'],
    ['spaces', '{ "a" : [ 1 , 2 ] }', 'less'],
    ['a key given twice', '{"a":"long value","a":1}', 'less'],
  ])('%s', (_name, text, expected) => {
    const { leastBytes } = read(text);
    const bytes = Buffer.byteLength(text);
    if (expected === 'exact') expect(leastBytes).toBe(bytes);
    else expect(leastBytes).toBeLessThan(bytes);
  });

  it('gives the largest container at each of the first depths', () => {
    const r = read('{"batch":[{"e":"x"},{"e":"longer"}],"k":"v"}');
    expect(r.largestAtDepth.slice(1)).toEqual([r.leastBytes, Buffer.byteLength('[{"e":"x"},{"e":"longer"}]'), Buffer.byteLength('{"e":"longer"}')]);
  });
});

describe('noEventOverLimit', () => {
  const event = (i: number, extra = '') => ({ event: 'e', distinct_id: `u${i}`, properties: { note: `ü${'x'.repeat(300)}${extra}` } });

  it('settles a large body of ordinary events without the scan, and agrees with it', () => {
    const text = JSON.stringify({ api_key: 'phc_a', batch: Array.from({ length: 3000 }, (_, i) => event(i)) });
    const r = read(text);
    expect(Buffer.byteLength(text)).toBeGreaterThan(500_000);
    expect(noEventOverLimit(Buffer.byteLength(text), r.leastBytes, r.largestAtDepth[3]!, 1_000_000)).toBe(true);
    expect(checkCapture(text)).toEqual({ token: 'phc_a', historicalMigration: false, eventCount: 3000 });
  });

  it('leaves a body with one large event to the scan, which finds it', () => {
    const text = JSON.stringify({ api_key: 'phc_a', batch: [event(0), event(1, 'y'.repeat(1_000_000)), event(2)] });
    const r = read(text);
    expect(noEventOverLimit(Buffer.byteLength(text), r.leastBytes, r.largestAtDepth[3]!, 1_000_000)).toBe(false);
    expect(checkCapture(text)).toMatchObject({ eventCount: 3, tooBigAt: 1 });
    expect(checkCapture(JSON.stringify([event(0), event(1, 'y'.repeat(1_000_000))].map((e) => ({ ...e, token: 'phc_a' }))))).toMatchObject({ eventCount: 2, tooBigAt: 1 });
  });
});
