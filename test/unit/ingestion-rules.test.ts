/** PostHog's ingestion rules applied at staging: each rule on the staged properties, the rejects, and the facts counted. */
import { describe, expect, it } from 'vitest';
import { buildEvent, type CandidateEvent, type EventRules } from '../../src/events/build-event.js';
import { isIllegalDistinctId } from '../../src/events/illegal-distinct-id.js';
import { applyIngestionRules, type IngestionRules } from '../../src/events/ingestion-rules.js';
import { buildNameMap } from '../../src/events/name-map.js';
import { FACT_EVENT_SET, FACT_ILLEGAL_ID, profileText, readProfile, rowProfile } from '../../src/events/row-facts.js';
import { EventKind, type EventKindValue } from '../../src/events/staged-event.js';

const NOW = Date.parse('2026-01-10T00:00:00Z');
const RULES: IngestionRules = { geoipFromIp: true, importSource: 'csv', importRun: 'run-1' };
const OWN = { $geoip_disable: true, $import_source: 'csv', $import_run: 'run-1' };

function apply(properties: Record<string, unknown>, options: { event?: string; distinctId?: string; kind?: EventKindValue; rules?: Partial<IngestionRules> } = {}) {
  const head = { event: options.event ?? 'viewed', distinctId: options.distinctId ?? 'u1', kind: options.kind ?? EventKind.event, distinctIdField: 'distinct_id' };
  const outcome = applyIngestionRules(head, properties, { ...RULES, ...options.rules });
  return { outcome, properties };
}

describe('GeoIP and provenance', () => {
  it.each<[string, Record<string, unknown>, Partial<IngestionRules>, Record<string, unknown>]>([
    ['no $ip: never located at the importing machine', { a: 1 }, {}, { a: 1, ...OWN }],
    ['an empty $ip is no address', { $ip: ' ' }, {}, { $ip: ' ', ...OWN }],
    ['its own $ip: left to PostHog', { $ip: '203.0.113.9' }, {}, { $ip: '203.0.113.9', $import_source: 'csv', $import_run: 'run-1' }],
    ['--no-geoip: every row', { $ip: '203.0.113.9' }, { geoipFromIp: false }, { $ip: '203.0.113.9', ...OWN }],
    ['vendor geography stays as mapped', { $geoip_city_name: 'Lyon' }, {}, { $geoip_city_name: 'Lyon', ...OWN }],
    ['a source $geoip_disable: false without $ip is overruled', { $geoip_disable: false }, {}, OWN],
    ["provenance replaces an earlier import's", { $import_source: 'mixpanel', $import_run: 'old' }, { importSource: 'posthog' }, { ...OWN, $import_source: 'posthog' }],
  ])('%s', (_name, properties, rules, expected) => {
    const { properties: after } = apply(properties, { rules });
    expect(after).toEqual(expected);
  });
});

describe('$set_once nulls and person updates', () => {
  it('drops null $set_once values, counted in the profile, and an emptied $set_once', () => {
    const { outcome, properties } = apply({ $set_once: { a: null, b: 1, c: null } });
    expect(properties.$set_once).toEqual({ b: 1 });
    expect(readProfile(profileText((outcome as { profile: string }).profile))).toContainEqual({ tag: 'set-once-nulls', count: 2 });
    expect(apply({ $set_once: { a: null } }).properties).not.toHaveProperty('$set_once');
  });

  it('rejects a person update over 512 KB of properties, not an event', () => {
    const big = { $set: { notes: 'x'.repeat(520 * 1024) } };
    expect(apply(structuredClone(big), { event: '$identify', kind: EventKind.person }).outcome).toMatchObject({ reason: 'person_properties_too_large', field: '$set' });
    expect(apply(structuredClone(big)).outcome).toHaveProperty('profile');
  });
});

describe('distinct_ids PostHog refuses to merge on', () => {
  it.each<[string, boolean]>([
    ['anonymous', true],
    ['ANONYMOUS', true],
    ['"guest"', true],
    ["'Distinct_ID'", true],
    ['undefined', true],
    ['[object Object]', true],
    ['NaN', true],
    ['nan', false],
    ['None', true],
    ['NONE', false],
    ['"null"', true],
    ['0', true],
    ['00', false],
    ['   ', true],
    ['user-1', false],
    ['a'.repeat(40), false],
  ])('%j: %s', (id, illegal) => {
    expect(isIllegalDistinctId(id)).toBe(illegal);
  });

  it.each<[string, string, string, Record<string, unknown>, string]>([
    ['an $identify of an illegal id', '$identify', 'null', { $anon_distinct_id: 'a1' }, 'distinct_id'],
    ['an $identify linking an illegal anonymous id', '$identify', 'u1', { $anon_distinct_id: 'anonymous' }, '$anon_distinct_id'],
    ['an alias to an illegal id', '$create_alias', 'u1', { alias: 'undefined' }, 'alias'],
    ['a forced merge with an illegal id', '$merge_dangerously', 'u1', { alias: 0 }, 'alias'],
  ])('rejects %s', (_name, event, distinctId, properties, field) => {
    expect(apply(properties, { event, distinctId }).outcome).toMatchObject({ reason: 'illegal_distinct_id', field });
  });

  it('flags other events with an illegal id, and events carrying their own $set', () => {
    expect(apply({}, { distinctId: 'guest' }).outcome).toMatchObject({ flags: FACT_ILLEGAL_ID });
    expect(apply({ $set: { plan: 'pro' } }).outcome).toMatchObject({ flags: FACT_EVENT_SET });
    expect(apply({ $set: {} }).outcome).toMatchObject({ flags: 0 });
    expect(apply({ $set: { plan: 'pro' } }, { kind: EventKind.person, event: '$identify' }).outcome).toMatchObject({ flags: 0 });
  });
});

describe('property types', () => {
  it.each<[string, Record<string, unknown>, Record<string, 'string' | 'number' | 'boolean'>, Record<string, unknown>]>([
    ['utm_* numbers and booleans become text', { utm_content: 42, utm_term: true, utm_source: 'x', utm_x: null }, {}, { utm_content: '42', utm_term: 'true', utm_source: 'x', utm_x: null }],
    ['a utm_* object is left as it is', { utm_campaign: { a: 1 } }, {}, { utm_campaign: { a: 1 } }],
    ['the map file can make a utm_* property a number', { utm_id: '7' }, { utm_id: 'number' }, { utm_id: 7 }],
    ['string', { code: 1234, flag: false }, { code: 'string', flag: 'string' }, { code: '1234', flag: 'false' }],
    [
      'number from text, exact beyond 2^53',
      { price: ' 9.5 ', big: '9007199254740993', neg: '-3e2' },
      { price: 'number', big: 'number', neg: 'number' },
      { price: 9.5, big: 9007199254740993n, neg: -300 },
    ],
    ['boolean from text and 0/1', { a: 'TRUE', b: 'false', c: 1, d: 0 }, { a: 'boolean', b: 'boolean', c: 'boolean', d: 'boolean' }, { a: true, b: false, c: true, d: false }],
    ['null keeps no type', { price: null }, { price: 'number' }, { price: null }],
  ])('%s', (_name, properties, types, expected) => {
    const { outcome, properties: after } = apply(properties, { rules: { types } });
    expect(outcome).toHaveProperty('profile');
    const { $geoip_disable: _g, $import_source: _s, $import_run: _r, ...rest } = after;
    expect(rest).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, Record<string, 'string' | 'number' | 'boolean'>, string]>([
    ['text that is no number', { price: '9,50' }, { price: 'number' }, 'the map file makes "price" a number, but "9,50" is not a number'],
    ['a boolean as a number', { price: true }, { price: 'number' }, 'the map file makes "price" a number, but true is not a number'],
    ['an object as text', { code: { a: 1 } }, { code: 'string' }, 'the map file makes "code" a string, but an object is not text'],
    ['yes as a boolean', { ok: 'yes' }, { ok: 'boolean' }, 'the map file makes "ok" a boolean, but "yes" is not true or false'],
    ['a number beyond 64 bits', { n: '123456789012345678901234' }, { n: 'number' }, 'is out of range'],
  ])('rejects %s, naming the property', (_name, properties, types, message) => {
    const name = Object.keys(properties)[0]!;
    expect(apply(properties, { rules: { types } }).outcome).toMatchObject({ reason: 'bad_property_type', field: name, message: expect.stringContaining(message) });
  });

  it('profiles an event by the JSON type of each top-level property and its group types; updates by their group type', () => {
    const profile = rowProfile(EventKind.event, { a: 'x', b: 1, c: 2n, d: true, e: { x: 1 }, f: [1], g: null, $groups: { company: 'acme', team: 't' }, $import_run: 'r' }, 0);
    expect(profile.length).toBe(9); // one character per entry
    expect(readProfile(profileText(profile))).toEqual([
      { tag: 'type', name: 'a', type: 'string' },
      { tag: 'type', name: 'b', type: 'number' },
      { tag: 'type', name: 'c', type: 'number' },
      { tag: 'type', name: 'd', type: 'boolean' },
      { tag: 'type', name: 'e', type: 'object' },
      { tag: 'type', name: 'f', type: 'array' },
      { tag: 'type', name: '$groups', type: 'object' },
      { tag: 'group', type: 'company' },
      { tag: 'group', type: 'team' },
    ]);
    expect(readProfile(profileText(rowProfile(EventKind.group, { $group_type: 'company', $group_key: 'acme', $group_set: {} }, 0)))).toEqual([{ tag: 'group', type: 'company' }]);
    expect(readProfile(profileText(rowProfile(EventKind.event, { a: 1 }, 2)))).toEqual([
      { tag: 'type', name: 'a', type: 'number' },
      { tag: 'set-once-nulls', count: 2 },
    ]);
    expect(rowProfile(EventKind.person, { $set: { a: 1 } }, 0)).toBe('');
  });
});

describe('buildEvent with the rules', () => {
  const rules: EventRules = { nameMap: buildNameMap(), nowMs: NOW, ingestion: { ...RULES, types: { price: 'number' } } };
  const candidate = (overrides: Partial<CandidateEvent> = {}): CandidateEvent => ({
    event: 'bought',
    distinctId: 'u1',
    timestamp: '2025-12-01T10:00:00Z',
    uuid: undefined,
    properties: { price: '3' },
    identity: '{"x":1}',
    ...overrides,
  });

  it('stages the properties as they will be sent, with the uuid the row would have without the rules', () => {
    const withRules = buildEvent(candidate(), rules);
    const without = buildEvent(candidate(), { nameMap: buildNameMap(), nowMs: NOW });
    expect(withRules.type === 'event' && without.type === 'event').toBe(true);
    if (withRules.type !== 'event' || without.type !== 'event') return;
    expect(JSON.parse(withRules.event.propertiesJson)).toEqual({ price: 3, ...OWN });
    expect(withRules.event.uuid).toEqual(without.event.uuid);
    expect(profileText(withRules.facts!.profile)).toContain('Tnprice');
  });

  it('rejects through buildEvent, with the source field name', () => {
    const outcome = buildEvent(candidate({ event: '$identify', distinctId: 'null', fieldNames: { distinctId: 'user_id' } }), rules);
    expect(outcome).toMatchObject({ type: 'rejected', problem: { reason: 'illegal_distinct_id', field: 'user_id' } });
  });
});

describe('profiles past the last entry character', () => {
  it('come as their text, read the same way (this thread keeps every entry it made)', () => {
    let last = '';
    for (let i = 0; i < 66_000 && !last.startsWith('\uffff'); i++) last = rowProfile(EventKind.event, { [`p${i}`]: i }, 0);
    expect(last.startsWith('\uffff')).toBe(true);
    const wide = rowProfile(EventKind.event, { known: 'x', brand_new: true }, 1);
    expect(readProfile(profileText(wide))).toEqual([
      { tag: 'type', name: 'known', type: 'string' },
      { tag: 'type', name: 'brand_new', type: 'boolean' },
      { tag: 'set-once-nulls', count: 1 },
    ]);
  });
});
