import { describe, expect, it } from 'vitest';
import { checkCapture, parseCapture, type ParsedCapture } from '../../src/sandbox/capture/capture-parse.js';
import type { CaptureProblem } from '../../src/sandbox/capture/capture-problem.js';

const NOW = Date.UTC(2025, 5, 1, 12);
const ctx = { nowMs: NOW, newUuid: () => '01970000-0000-7000-8000-000000000001' };
const UUID = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const text = (body: unknown): string => (typeof body === 'string' ? body : JSON.stringify(body));
const parse = (body: unknown): ParsedCapture | CaptureProblem => parseCapture(text(body), ctx);
const badUuid = (uuid: string) => ({ api_key: 'phc_a', batch: [{ event: 'e', distinct_id: 'd' }, { event: 'e', distinct_id: 'd', uuid }] });

const SHAPES = [
  ['batch with api_key', { api_key: 'phc_a', batch: [{ event: 'e', distinct_id: 'd' }] }, 'phc_a', false],
  ['batch with token alias', { token: 'phc_a', batch: [{ event: 'e', distinct_id: 'd' }] }, 'phc_a', false],
  ['batch with historical flag', { api_key: 'phc_a', historical_migration: true, batch: [{ event: 'e', distinct_id: 'd' }] }, 'phc_a', true],
  ['one event with api_key', { api_key: 'phc_a', event: 'e', distinct_id: 'd' }, 'phc_a', false],
  ['one event with $token', { $token: 'phc_a', event: 'e', distinct_id: 'd' }, 'phc_a', false],
  ['one event with properties.token', { event: 'e', distinct_id: 'd', properties: { token: 'phc_a' } }, 'phc_a', false],
  ['historical flag ignored outside the batch shape', { api_key: 'phc_a', historical_migration: true, event: 'e', distinct_id: 'd' }, 'phc_a', false],
  ['array with one token', [{ token: 'phc_a', event: 'e', distinct_id: 'd' }, { event: 'f', distinct_id: 'd', properties: { token: 'phc_a' } }], 'phc_a', false],
] as const;

const REFUSALS = [
  ['invalid JSON', '{"batch": [', 400, 'invalid_payload'],
  ['a number', '42', 400, 'invalid_payload'],
  ['empty batch', { api_key: 'phc_a', batch: [] }, 400, 'empty_batch'],
  ['empty array', [], 400, 'empty_batch'],
  ['missing event field', { api_key: 'phc_a', batch: [{ distinct_id: 'd' }] }, 400, 'invalid_payload'],
  ['empty event name', { api_key: 'phc_a', batch: [{ event: '', distinct_id: 'd' }] }, 400, 'missing_event_name'],
  ['missing distinct_id', { api_key: 'phc_a', batch: [{ event: 'e' }] }, 400, 'missing_distinct_id'],
  ['null distinct_id', { api_key: 'phc_a', batch: [{ event: 'e', distinct_id: null }] }, 400, 'missing_distinct_id'],
  ['empty distinct_id', { api_key: 'phc_a', batch: [{ event: 'e', distinct_id: '' }] }, 400, 'missing_distinct_id'],
  ['bad uuid', { api_key: 'phc_a', batch: [{ event: 'e', distinct_id: 'd', uuid: 'not-a-uuid' }] }, 400, 'invalid_payload'],
  ['properties not an object', { api_key: 'phc_a', batch: [{ event: 'e', distinct_id: 'd', properties: [1] }] }, 400, 'invalid_payload'],
  ['no token', { event: 'e', distinct_id: 'd' }, 401, 'no_token'],
  ['batch without api_key', { batch: [{ event: 'e', distinct_id: 'd' }] }, 401, 'no_token'],
  ['empty token', { api_key: '', batch: [{ event: 'e', distinct_id: 'd' }] }, 401, 'invalid_token'],
  ['personal key', { api_key: 'phx_abcdef', batch: [{ event: 'e', distinct_id: 'd' }] }, 401, 'invalid_token'],
  ['inconsistent tokens', [{ token: 'phc_a', event: 'e', distinct_id: 'd' }, { token: 'phc_b', event: 'e', distinct_id: 'd' }], 401, 'multiple_tokens'],
  ['parse errors come before the token check', { batch: [{ distinct_id: 'd' }] }, 400, 'invalid_payload'],
  ['the token check comes before event checks', { api_key: 'phx_abcdef', batch: [{ event: 'e' }] }, 401, 'invalid_token'],
  ['a uuid with a letter past f', badUuid('0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5g'), 400, 'invalid_payload'],
  ['a uuid with a hyphen out of place', badUuid('0193a1b2c-3d4-7e5f-8a9b-0c1d2e3f4a5b'), 400, 'invalid_payload'],
  ['a uuid one digit short', badUuid('0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5'), 400, 'invalid_payload'],
  ['a uuid that is a number', { api_key: 'phc_a', batch: [{ event: 'e', distinct_id: 'd', uuid: 7 }] }, 400, 'invalid_payload'],
  ['an empty top-level distinct_id (properties not consulted)', { api_key: 'phc_a', batch: [{ event: 'e', distinct_id: '', properties: { distinct_id: 'p' } }] }, 400, 'missing_distinct_id'],
  ['the first problem wins', { api_key: 'phc_a', batch: [{ event: 'e' }, { event: '', distinct_id: 'd' }] }, 400, 'missing_distinct_id'],
] as const;

describe('parseCapture: body shapes and tokens', () => {
  it.each(SHAPES)('%s', (_name, body, token, historical) => {
    expect(parse(body)).toMatchObject({ token, historicalMigration: historical });
  });

  it.each(REFUSALS)('refuses %s', (_name, body, status, code) => {
    expect(parse(body)).toMatchObject({ problem: true, status, code });
  });

  it('is all or nothing: one bad event refuses the request', () => {
    const batch = [{ event: 'e', distinct_id: 'a' }, { event: 'e' }, { event: 'e', distinct_id: 'c' }];
    expect(parse({ api_key: 'phc_a', batch })).toMatchObject({ problem: true, status: 400, error: 'event submitted without a distinct_id' });
  });
});

describe('parseCapture: events', () => {
  const one = (event: Record<string, unknown>) => {
    const parsed = parse({ api_key: 'phc_a', batch: [{ event: 'e', ...event }] });
    if ('problem' in parsed) throw new Error(parsed.error);
    return parsed.events[0]!;
  };

  it.each([
    ['top level', { distinct_id: 'top' }, 'top'],
    ['$distinct_id alias', { $distinct_id: 'alias' }, 'alias'],
    ['from properties', { properties: { distinct_id: 'prop' } }, 'prop'],
    ['top level wins', { distinct_id: 'top', properties: { distinct_id: 'prop' } }, 'top'],
    ['null top falls back to properties', { distinct_id: null, properties: { distinct_id: 'prop' } }, 'prop'],
    ['number stringified', { distinct_id: 23 }, '23'],
    ['float stringified', { distinct_id: 23.4 }, '23.4'],
    ['object stringified with sorted keys', { distinct_id: { string: 'a', number: 3 } }, '{"number":3,"string":"a"}'],
    ['cut at 200 characters', { distinct_id: 'x'.repeat(222) }, 'x'.repeat(200)],
    ['200 characters kept', { distinct_id: 'x'.repeat(200) }, 'x'.repeat(200)],
    ['201 characters cut', { distinct_id: 'x'.repeat(201) }, 'x'.repeat(200)],
    ['150 emoji (300 UTF-16 units) kept: characters, not units', { distinct_id: '😀'.repeat(150) }, '😀'.repeat(150)],
    ['201 emoji cut to 200', { distinct_id: '😀'.repeat(201) }, '😀'.repeat(200)],
  ])('distinct_id %s', (_name, fields, expected) => {
    expect(one(fields).distinctId).toBe(expected);
  });

  it.each([
    ['kept (lowercased)', UUID.toUpperCase(), UUID],
    ['without hyphens', UUID.replaceAll('-', ''), UUID],
    ['in braces', `{${UUID}}`, UUID],
    ['as a urn, with spaces around', ` urn:uuid:${UUID} `, UUID],
    ['mixed case', UUID.slice(0, 18).toUpperCase() + UUID.slice(18), UUID],
    ['empty string means none', '', '01970000-0000-7000-8000-000000000001'],
    ['absent means none', undefined, '01970000-0000-7000-8000-000000000001'],
  ])('uuid %s', (_name, uuid, expected) => {
    expect(one({ distinct_id: 'd', uuid }).uuid).toBe(expected);
  });

  it('keeps properties and merges top-level $set and $set_once into them', () => {
    const e = one({ distinct_id: 'd', properties: { a: 1, $set: { x: 1 } }, $set: { x: 0, y: 2 }, $set_once: { z: 3 } });
    expect(e.properties).toEqual({ a: 1, $set: { x: 1, y: 2 }, $set_once: { z: 3 } });
  });

  it('applies sent_at clock-skew correction to every event of a batch', () => {
    const sentAt = new Date(NOW - 60_000).toISOString();
    const parsed = parse({ api_key: 'phc_a', sent_at: sentAt, batch: [{ event: 'e', distinct_id: 'd', timestamp: '2025-01-01T00:00:00.000Z' }] });
    expect(parsed).toMatchObject({ events: [{ timestamp: '2025-01-01T00:01:00.000Z' }] });
  });

  it('uses the query sent_at when the body has none', () => {
    const parsed = parseCapture(JSON.stringify({ api_key: 'phc_a', batch: [{ event: 'e', distinct_id: 'd', timestamp: '2025-01-01T00:00:00.000Z' }] }), {
      ...ctx,
      querySentAtMs: NOW - 1000,
    });
    expect(parsed).toMatchObject({ events: [{ timestamp: '2025-01-01T00:00:01.000Z' }] });
  });
});

describe('checkCapture (count-only mode): the same checks, nothing built', () => {
  it.each(SHAPES)('%s', (_name, body, token, historical) => {
    expect(checkCapture(text(body))).toEqual({ token, historicalMigration: historical, eventCount: Array.isArray(body) ? body.length : 1 });
  });

  it.each(REFUSALS)('refuses %s as parseCapture does', (_name, body) => {
    expect(checkCapture(text(body))).toEqual(parse(body));
  });

  it('counts the events of an accepted batch', () => {
    const batch = [{ event: 'e', distinct_id: 'a' }, { event: 'e', $distinct_id: 2 }, { event: 'e', properties: { distinct_id: { x: 1 } }, uuid: ` {${UUID.toUpperCase()}} ` }];
    expect(checkCapture(text({ api_key: 'phc_a', historical_migration: true, batch }))).toEqual({ token: 'phc_a', historicalMigration: true, eventCount: 3 });
  });
});
