import { describe, expect, it } from 'vitest';
import { checkCapture, parseCapture, type ParsedCapture } from '../../src/sandbox/capture/capture-parse.js';
import type { CaptureProblem } from '../../src/sandbox/capture/capture-problem.js';

const NOW = Date.UTC(2025, 5, 1, 12);
const ctx = { nowMs: NOW, newUuid: () => '01970000-0000-7000-8000-000000000001' };
const UUID = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const text = (body: unknown): string => (typeof body === 'string' ? body : JSON.stringify(body));
const parse = (body: unknown): ParsedCapture | CaptureProblem => parseCapture(text(body), ctx);
const badUuid = (uuid: string) => ({
  api_key: 'phc_a',
  batch: [
    { event: 'e', distinct_id: 'd' },
    { event: 'e', distinct_id: 'd', uuid },
  ],
});

const SHAPES = [
  ['batch with api_key', { api_key: 'phc_a', batch: [{ event: 'e', distinct_id: 'd' }] }, 'phc_a', false],
  ['batch with token alias', { token: 'phc_a', batch: [{ event: 'e', distinct_id: 'd' }] }, 'phc_a', false],
  ['batch with historical flag', { api_key: 'phc_a', historical_migration: true, batch: [{ event: 'e', distinct_id: 'd' }] }, 'phc_a', true],
  ['one event with api_key', { api_key: 'phc_a', event: 'e', distinct_id: 'd' }, 'phc_a', false],
  ['one event with $token', { $token: 'phc_a', event: 'e', distinct_id: 'd' }, 'phc_a', false],
  ['one event with properties.token', { event: 'e', distinct_id: 'd', properties: { token: 'phc_a' } }, 'phc_a', false],
  ['historical flag ignored outside the batch shape', { api_key: 'phc_a', historical_migration: true, event: 'e', distinct_id: 'd' }, 'phc_a', false],
  [
    'array with one token',
    [
      { token: 'phc_a', event: 'e', distinct_id: 'd' },
      { event: 'f', distinct_id: 'd', properties: { token: 'phc_a' } },
    ],
    'phc_a',
    false,
  ],
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
  [
    'inconsistent tokens',
    [
      { token: 'phc_a', event: 'e', distinct_id: 'd' },
      { token: 'phc_b', event: 'e', distinct_id: 'd' },
    ],
    401,
    'multiple_tokens',
  ],
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
    ['as a urn', `urn:uuid:${UUID}`, UUID],
    ['mixed case', UUID.slice(0, 18).toUpperCase() + UUID.slice(18), UUID],
    ['empty string means none', '', '01970000-0000-7000-8000-000000000001'],
    ['absent means none', undefined, '01970000-0000-7000-8000-000000000001'],
  ])('uuid %s', (_name, uuid, expected) => {
    expect(one({ distinct_id: 'd', uuid }).uuid).toBe(expected);
  });

  it('keeps properties and merges top-level $set and $set_once into them, the top level winning', () => {
    const e = one({ distinct_id: 'd', properties: { a: 1, $set: { x: 1, w: 4 } }, $set: { x: 0, y: 2 }, $set_once: { z: 3 } });
    expect(e.properties).toEqual({ a: 1, $set: { x: 0, w: 4, y: 2 }, $set_once: { z: 3 } });
  });

  it('records sent_at on the events as $sent_at, as ingestion does', () => {
    const parsed = parse({ api_key: 'phc_a', sent_at: '2025-06-01T11:59:00.000Z', batch: [{ event: 'e', distinct_id: 'd' }] });
    expect(parsed).toMatchObject({ events: [{ properties: { $sent_at: '2025-06-01T11:59:00.000Z' } }] });
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
    const batch = [
      { event: 'e', distinct_id: 'a' },
      { event: 'e', $distinct_id: 2 },
      { event: 'e', properties: { distinct_id: { x: 1 } }, uuid: `{${UUID.toUpperCase()}}` },
    ];
    expect(checkCapture(text({ api_key: 'phc_a', historical_migration: true, batch }))).toEqual({ token: 'phc_a', historicalMigration: true, eventCount: 3 });
  });
});

const batchOf = (event: Record<string, unknown>, batch: Record<string, unknown> = {}) => ({ api_key: 'phc_a', ...batch, batch: [{ event: 'e', distinct_id: 'd', ...event }] });
const eventText = (fields: string) => `{"api_key":"phc_a","batch":[{"event":"e","distinct_id":"d",${fields}}]}`;

describe('parseCapture: the whole request refused as PostHog refuses it, naming the field', () => {
  it.each([
    ['a timestamp that is a number (epoch ms)', batchOf({ timestamp: 1714557600000 }), 400, '`timestamp` is not a string at event 0'],
    ['an offset with a fraction', batchOf({ offset: 1.5 }), 400, '`offset` is not an integer'],
    ['an offset written 1.0', eventText('"offset":1.0'), 400, '`offset` is not an integer'],
    ['an offset that is a string', batchOf({ offset: '100' }), 400, '`offset` is not an integer'],
    ['a batch sent_at that is a number', batchOf({}, { sent_at: 1714557600000 }), 400, '`sent_at` is not a string'],
    ['historical_migration "true"', batchOf({}, { historical_migration: 'true' }), 400, '`historical_migration` is not a boolean'],
    ['historical_migration 1', batchOf({}, { historical_migration: 1 }), 400, '`historical_migration` is not a boolean'],
    ['properties null', batchOf({ properties: null }), 400, '`properties` is not an object'],
    ['properties a string', batchOf({ properties: 'x' }), 400, '`properties` is not an object'],
    ['a top-level $set that is a string', batchOf({ $set: 'x' }), 400, '`$set` is not an object'],
    ['a top-level $set_once that is an array', batchOf({ $set_once: [1] }), 400, '`$set_once` is not an object'],
    ['$cookieless_mode "true"', batchOf({ properties: { $cookieless_mode: 'true' } }), 400, '$cookieless_mode'],
    ['$cookieless_mode null', batchOf({ properties: { $cookieless_mode: null } }), 400, '$cookieless_mode'],
    ['a uuid with spaces around', batchOf({ uuid: ` ${UUID}` }), 400, '`uuid` is not a valid uuid'],
    ['a uuid with one hyphen missing', batchOf({ uuid: UUID.replace('-', '') }), 400, '`uuid` is not a valid uuid'],
    ['a uuid urn in capitals', batchOf({ uuid: `URN:UUID:${UUID}` }), 400, '`uuid` is not a valid uuid'],
    ['a token that is a number', batchOf({ token: 5 }), 400, '`token` is not a string'],
    ['event twice', eventText('"event":"f"'), 400, 'duplicate field `event` at event 0'],
    ['distinct_id with $distinct_id', eventText('"$distinct_id":"x"'), 400, 'duplicate field `distinct_id` at event 0'],
    ['distinct_id twice with the same value', eventText('"distinct_id":"d"'), 400, 'duplicate field `distinct_id`'],
    ['token with $token in an event', eventText('"token":"a","$token":"a"'), 400, 'duplicate field `token`'],
    ['api_key with token in a batch', '{"api_key":"phc_a","token":"phc_a","batch":[{"event":"e","distinct_id":"d"}]}', 400, 'duplicate field `token`'],
    ['batch twice', '{"api_key":"phc_a","batch":[],"batch":[{"event":"e","distinct_id":"d"}]}', 400, 'duplicate field `batch`'],
    ['one event with event twice', '{"api_key":"phc_a","event":"e","distinct_id":"d","event":"f"}', 400, 'duplicate field `event`'],
    ['nesting of 128 levels in properties', eventText(`"properties":{"a":${'['.repeat(124)}${']'.repeat(124)}}`), 400, 'recursion limit exceeded'],
    ['nesting of 200,000 levels', '['.repeat(200_000) + ']'.repeat(200_000), 400, 'recursion limit exceeded'],
    ['a lone surrogate escape', eventText('"properties":{"name":"\\ud800"}'), 400, 'lone leading surrogate'],
    ['a number out of range', eventText('"properties":{"n":1e400}'), 400, 'number out of range'],
    ['a byte order mark before the body', `\uFEFF${JSON.stringify(batchOf({}))}`, 400, 'failed to parse request'],
    ['an empty batch', { api_key: 'phc_a', batch: [] }, 400, 'request holds no event'],
    ['batch that is not an array', { api_key: 'phc_a', batch: {} }, 400, '`batch` is not an array'],
  ])('%s', (_name, body, status, error) => {
    const result = parse(body);
    expect(result).toMatchObject({ problem: true, status });
    expect((result as CaptureProblem).error).toContain(error);
    expect(checkCapture(text(body))).toEqual(result);
  });

  it.each([
    ['duplicate keys inside properties (a map, not a struct field)', eventText('"properties":{"a":1,"a":2}')],
    ['a repeated unknown field', eventText('"extra":1,"extra":2')],
    ['127 levels of nesting', eventText(`"properties":{"a":${'['.repeat(123)}${']'.repeat(123)}}`)],
    ['null for optional fields', eventText('"timestamp":null,"offset":null,"uuid":null,"$set":null,"$set_once":null,"token":null')],
    ['a uuid without hyphens (the uuid crate takes that form)', batchOf({ uuid: UUID.replaceAll('-', '') })],
    ['historical_migration null', batchOf({}, { historical_migration: null })],
    ['a large integer offset', batchOf({ offset: 9007199254740993 })],
  ])('accepts %s', (_name, body) => {
    expect(parse(body)).toMatchObject({ token: 'phc_a', eventCount: 1 });
  });
});

describe('parseCapture: what is stored', () => {
  const first = (body: unknown) => {
    const parsed = parse(body);
    if ('problem' in parsed) throw new Error(parsed.error);
    return parsed.events[0]!;
  };

  it.each([
    ['a large integer kept exactly', '{"api_key":"phc_a","batch":[{"event":"e","distinct_id":9007199254740993}]}', '9007199254740993'],
    ['1.0 kept as 1.0', '{"api_key":"phc_a","batch":[{"event":"e","distinct_id":1.0}]}', '1.0'],
    ['a number in properties.distinct_id', '{"api_key":"phc_a","batch":[{"event":"e","properties":{"distinct_id":12345678901234567890}}]}', '12345678901234567890'],
    ['a number in a single event', '{"api_key":"phc_a","event":"e","$distinct_id":-0}', '-0.0'],
    ['NUL replaced', batchOf({ distinct_id: 'a\0b' }), 'a\uFFFDb'],
    ['only NUL: kept, as U+FFFD', batchOf({ distinct_id: '\0' }), '\uFFFD'],
  ])('distinct_id: %s', (_name, body, expected) => {
    expect(first(body).distinctId).toBe(expected);
  });

  it.each([
    ['offset wins over timestamp', batchOf({ timestamp: '2024-05-01T10:00:00.000Z', offset: 60_000 }), '2025-06-01T11:59:00.000Z', undefined],
    ['a +03 zone', batchOf({ timestamp: '2024-05-01T10:00:00+03' }), '2024-05-01T07:00:00.000Z', undefined],
    ['epoch milliseconds as a string', batchOf({ timestamp: '1714557600000' }), '2024-05-01T10:00:00.000Z', undefined],
    ['more than 23 hours ahead', batchOf({ timestamp: '2025-06-03T00:00:00Z' }), '2025-06-01T12:00:00.000Z', 'event_timestamp_in_future'],
    ['unreadable', batchOf({ timestamp: 'last tuesday' }), '2025-06-01T12:00:00.000Z', 'ignored_invalid_timestamp'],
  ])('timestamp: %s', (_name, body, expected, warning) => {
    const e = first(body);
    expect(e.timestamp).toBe(expected);
    expect(e.warning).toBe(warning);
  });

  it('finds the first event over the per-event limit; events before it are kept', () => {
    const big = 'x'.repeat(2000);
    const body = {
      api_key: 'phc_a',
      batch: [
        { event: 'a', distinct_id: 'd' },
        { event: 'b', distinct_id: 'd', properties: { big } },
        { event: 'c', distinct_id: 'd' },
      ],
    };
    const parsed = parseCapture(text(body), { ...ctx, maxEventBytes: 1500 });
    expect(parsed).toMatchObject({ eventCount: 3, tooBigAt: 1, events: [{ event: 'a' }] });
    expect((parsed as ParsedCapture).events).toHaveLength(1);
    expect(checkCapture(text(body), { maxEventBytes: 1500 })).toEqual({ token: 'phc_a', historicalMigration: false, eventCount: 3, tooBigAt: 1 });
  });

  it('counts quotes twice toward the per-event limit (the event travels as an escaped string)', () => {
    const quotes = { api_key: 'phc_a', batch: [{ event: 'a', distinct_id: 'd', properties: { q: '"'.repeat(400) } }] };
    const plain = { api_key: 'phc_a', batch: [{ event: 'a', distinct_id: 'd', properties: { q: 'x'.repeat(800) } }] };
    expect(checkCapture(text(quotes), { maxEventBytes: 1800 })).toMatchObject({ tooBigAt: 0 });
    expect(checkCapture(text(plain), { maxEventBytes: 1800 })).not.toHaveProperty('tooBigAt');
  });
});
