/**
 * Count-only mode checks requests on their bytes as latin1 text (one char per byte) rather than
 * decoded: the answer must be the one the decoded text gets, refusals and their messages too.
 */
import { describe, expect, it } from 'vitest';
import { checkCapture } from '../../src/sandbox/capture/capture-parse.js';
import { extractPayload } from '../../src/sandbox/capture/capture-payload.js';

const batch = (events: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify({ api_key: 'phc_ü', ...extra, batch: events });
const spaces = '\u3000\u00a0\u2002\ufeff';

describe('checkCapture on latin1 text (count-only)', () => {
  it.each([
    ['non-ASCII names, ids and properties', batch([{ event: 'café 🎉', distinct_id: 'Ωmega', properties: { ключ: 'значение 中文', n: 1 } }])],
    ['a distinct_id of Unicode spaces only', batch([{ event: 'e', distinct_id: spaces }])],
    ['a distinct_id in properties of Unicode spaces only', batch([{ event: 'e', properties: { distinct_id: '\u3000' } }])],
    ['a token of Unicode spaces only', JSON.stringify({ api_key: spaces, batch: [{ event: 'e', distinct_id: 'd' }] })],
    [
      'event tokens that differ in non-ASCII only',
      JSON.stringify([
        { event: 'e', distinct_id: 'd', token: 'phc_é' },
        { event: 'e', distinct_id: 'd', token: 'phc_è' },
      ]),
    ],
    ['a non-ASCII uuid', batch([{ event: 'e', distinct_id: 'd', uuid: '0190000ü-0000-7000-8000-000000000001' }])],
    ['a non-ASCII key given twice', `{"api_key":"phc_a","batch":[{"event":"e","distinct_id":"d","properties":{"ü":1,"ü":2}}]}`],
    ['a top field given twice after non-ASCII text', `{"api_key":"phc_a","batch":[{"event":"é","distinct_id":"d","event":"x"}]}`],
    ['not JSON, with non-ASCII text', '{"api_key":"phc_ü","batch":[{"event":"é"'],
    ['a byte order mark', `\ufeff${batch([{ event: 'e', distinct_id: 'd' }])}`],
    ['an empty name', batch([{ event: '', distinct_id: 'ü' }])],
    ['a body over the per-event bound', batch(Array.from({ length: 40 }, (_, i) => ({ event: 'é', distinct_id: `d${i}`, properties: { s: 'ü'.repeat(20_000) } })))],
  ])('%s: the same answer as the decoded text', (_name, text) => {
    const bytes = Buffer.from(text, 'utf8');
    const decoded = extractPayload({ body: bytes, inflated: false, query: new URLSearchParams(), path: '/batch/', maxBodyBytes: 1e8, contentType: 'application/json', contentEncoding: undefined });
    const latin1 = extractPayload({
      body: bytes,
      inflated: false,
      query: new URLSearchParams(),
      path: '/batch/',
      maxBodyBytes: 1e8,
      contentType: 'application/json',
      contentEncoding: undefined,
      latin1Text: true,
    });
    if ('problem' in decoded || 'problem' in latin1) throw new Error('payload refused');
    expect(latin1.latin1).toBe(true);
    expect(latin1.bytes).toBe(bytes);
    expect(checkCapture(latin1, { maxEventBytes: 500_000 })).toEqual(checkCapture(decoded, { maxEventBytes: 500_000 }));
  });

  it('refuses bytes that are not UTF-8, as decoding does', () => {
    const bytes = Buffer.concat([Buffer.from('{"api_key":"phc_a","batch":[{"event":"'), Buffer.from([0xff]), Buffer.from('","distinct_id":"d"}]}')]);
    const source = { body: bytes, inflated: false, query: new URLSearchParams(), path: '/batch/', maxBodyBytes: 1e8, contentType: 'application/json', contentEncoding: undefined };
    expect(extractPayload({ ...source, latin1Text: true })).toEqual(extractPayload(source));
  });
});
