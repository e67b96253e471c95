import { describe, expect, it } from 'vitest';
import { buildEvent, type CandidateEvent, type EventRules } from '../../src/events/build-event.js';
import { buildNameMap } from '../../src/events/name-map.js';
import { uuidText } from '../../src/events/stable-uuid.js';
import { createZoneConverter } from '../../src/events/time-zone.js';

const NOW = Date.parse('2026-01-10T00:00:00Z');
const rules: EventRules = { nameMap: buildNameMap(), nowMs: NOW };

function candidate(overrides: Partial<CandidateEvent> = {}): CandidateEvent {
  return { event: 'signed_up', distinctId: 'u1', timestamp: '2025-12-01T10:00:00Z', uuid: undefined, properties: { plan: 'pro' }, identity: '{"x":1}', ...overrides };
}

describe('buildEvent rejects', () => {
  it.each<[string, Partial<CandidateEvent>, string, string]>([
    ['no event', { event: '' }, 'missing_event', 'event'],
    ['event not a string', { event: 42 }, 'bad_value', 'event'],
    ['no distinct_id', { distinctId: undefined }, 'missing_distinct_id', 'distinct_id'],
    ['empty distinct_id', { distinctId: '' }, 'missing_distinct_id', 'distinct_id'],
    ['blank distinct_id', { distinctId: '   ' }, 'missing_distinct_id', 'distinct_id'],
    ['object distinct_id', { distinctId: { a: 1 } }, 'bad_value', 'distinct_id'],
    ['distinct_id over 200', { distinctId: 'x'.repeat(201) }, 'distinct_id_too_long', 'distinct_id'],
    ['no timestamp', { timestamp: '' }, 'missing_timestamp', 'timestamp'],
    ['bad timestamp', { timestamp: 'soon' }, 'bad_timestamp', 'timestamp'],
    ['future timestamp', { timestamp: '2026-02-01T00:00:00Z' }, 'future_timestamp', 'timestamp'],
    ['23 h and a second ahead', { timestamp: '2026-01-10T23:00:01Z' }, 'future_timestamp', 'timestamp'],
    ['epoch 0 (a null turned into a number)', { timestamp: 0 }, 'implausible_timestamp', 'timestamp'],
    ['a 0 cell', { timestamp: '0' }, 'implausible_timestamp', 'timestamp'],
    ['epoch 0 as ISO', { timestamp: '1970-01-01T00:00:00Z' }, 'implausible_timestamp', 'timestamp'],
    ["a spreadsheet's empty date, without a zone", { timestamp: '1900-01-01' }, 'implausible_timestamp', 'timestamp'],
    ['a spreadsheet empty date and time, without a zone', { timestamp: '1899-12-31 00:00:00' }, 'implausible_timestamp', 'timestamp'],
    ['the last instant before 2000', { timestamp: '1999-12-31T23:59:59.999Z' }, 'implausible_timestamp', 'timestamp'],
    ['a time without a zone near the bound is still missing its zone', { timestamp: '2000-01-01 05:00:00' }, 'timestamp_without_zone', 'timestamp'],
    ['bad uuid', { uuid: 'nope' }, 'bad_uuid', 'uuid'],
    ['nil uuid', { uuid: '00000000-0000-0000-0000-000000000000' }, 'bad_uuid', 'uuid'],
    ['event too large', { properties: { blob: 'x'.repeat(950 * 1024) } }, 'event_too_large', ''],
  ])('%s', (_name, overrides, reason, field) => {
    const outcome = buildEvent(candidate(overrides), rules);
    expect(outcome).toMatchObject({ type: 'rejected', problem: { reason, field } });
  });

  it('says what --min-time is and how to move it', () => {
    const outcome = buildEvent(candidate({ timestamp: 0 }), rules);
    expect(outcome).toMatchObject({
      problem: { message: '1970-01-01T00:00:00.000Z is before 2000-01-01 (--min-time): a placeholder such as 0 or 1900-01-01? If it is real, pass --min-time <earlier date>' },
    });
  });

  it('stages early times once --min-time allows them, and times up to 23 hours ahead as recent', () => {
    expect(buildEvent(candidate({ timestamp: '1995-05-05T00:00:00Z' }), { ...rules, minTimeMs: Date.UTC(1990, 0, 1) })).toMatchObject({ type: 'event' });
    expect(buildEvent(candidate({ timestamp: 0 }), { ...rules, minTimeMs: 0 })).toMatchObject({ type: 'event' });
    expect(buildEvent(candidate({ timestamp: '2000-01-01T00:00:00Z' }), rules)).toMatchObject({ type: 'event', recent: false });
    expect(buildEvent(candidate({ timestamp: '2026-01-10T22:59:59Z' }), rules)).toMatchObject({ type: 'event', recent: true });
    expect(buildEvent(candidate({ timestamp: '2026-01-10T23:00:00Z' }), rules)).toMatchObject({ type: 'event', recent: true });
  });

  it('keys a row whose time a zone option decided, and no other', () => {
    const zone = createZoneConverter('Europe/Paris');
    const zoned = buildEvent(candidate({ timestamp: '2025-12-01 10:00:00' }), { ...rules, zone });
    const other = buildEvent(candidate({ timestamp: '2025-12-01 10:00:00' }), { ...rules, zone: createZoneConverter('America/New_York') });
    expect(zoned.type === 'event' && other.type === 'event').toBe(true);
    if (zoned.type !== 'event' || other.type !== 'event') return;
    expect(zoned.zoneKey).toHaveLength(16);
    expect(Buffer.from(zoned.zoneKey!).equals(Buffer.from(other.zoneKey!))).toBe(true);
    expect(uuidText(zoned.event.uuid)).not.toBe(uuidText(other.event.uuid));
    expect(buildEvent(candidate({ timestamp: '2025-12-01T10:00:00Z' }), { ...rules, zone })).toMatchObject({ zoneKey: undefined });
    expect(buildEvent(candidate({ timestamp: '2025-12-01 10:00:00', uuid: '0190a000-0000-7000-8000-000000000001' }), { ...rules, zone })).toMatchObject({ zoneKey: undefined });
    // A reader that applied the zone itself (Mixpanel) says so with the time as written.
    const mixpanel = buildEvent(candidate({ sourceTime: 1_764_583_200 }), rules);
    expect(mixpanel.type === 'event' && mixpanel.zoneKey?.length).toBe(16);
  });

  it('names the source field in the problem', () => {
    const outcome = buildEvent(candidate({ distinctId: '', fieldNames: { distinctId: 'user_id' } }), rules);
    expect(outcome).toMatchObject({ problem: { field: 'user_id' } });
  });
});

describe('buildEvent staging', () => {
  it('stages the final event exactly as it will be sent', () => {
    const outcome = buildEvent(candidate({ event: 'pageview', distinctId: 12345 }), rules);
    expect(outcome).toMatchObject({
      type: 'event',
      recent: false,
      event: { kind: 0, event: '$pageview', distinctId: '12345', timestampMs: Date.parse('2025-12-01T10:00:00Z'), propertiesJson: '{"plan":"pro"}' },
    });
  });

  it('keeps a given uuid, normalised', () => {
    const outcome = buildEvent(candidate({ uuid: '{0190A5B2-1C2D-7E3F-8A4B-5C6D7E8F9A0B}' }), rules);
    expect(outcome.type === 'event' && uuidText(outcome.event.uuid)).toBe('0190a5b2-1c2d-7e3f-8a4b-5c6d7e8f9a0b');
  });

  it('derives the same uuid for the same record, another for another record', () => {
    const a = buildEvent(candidate(), rules);
    const b = buildEvent(candidate(), rules);
    const c = buildEvent(candidate({ identity: '{"x":2}' }), rules);
    expect(a.type === 'event' && b.type === 'event' && c.type === 'event').toBe(true);
    if (a.type === 'event' && b.type === 'event' && c.type === 'event') {
      expect(a.event.uuid).toEqual(b.event.uuid);
      expect(c.event.uuid).not.toEqual(a.event.uuid);
    }
  });

  it('warns about events within the last 48 hours', () => {
    expect(buildEvent(candidate({ timestamp: '2026-01-09T00:00:00Z' }), rules)).toMatchObject({ type: 'event', recent: true });
  });

  it('skips events mapped to null and renames properties', () => {
    const nameMap = buildNameMap({ replaceDefaults: false, events: { debug: null }, properties: { plan: 'tier', secret: null } });
    expect(buildEvent(candidate({ event: 'debug' }), { ...rules, nameMap })).toEqual({ type: 'skipped' });
    const outcome = buildEvent(candidate({ properties: { plan: 'pro', secret: 's', kept: 1 } }), { ...rules, nameMap });
    expect(outcome).toMatchObject({ event: { propertiesJson: '{"tier":"pro","kept":1}' } });
  });

  it('rejects a rename onto an existing property', () => {
    const nameMap = buildNameMap({ replaceDefaults: false, events: {}, properties: { url: '$current_url' } });
    const outcome = buildEvent(candidate({ properties: { url: 'a', $current_url: 'b' } }), { ...rules, nameMap });
    expect(outcome).toMatchObject({ type: 'rejected', problem: { reason: 'duplicate_property' } });
  });

  it('replaceDefaults drops the built-in renames', () => {
    const nameMap = buildNameMap({ replaceDefaults: true, events: {}, properties: {} });
    expect(buildEvent(candidate({ event: 'pageview' }), { ...rules, nameMap })).toMatchObject({ event: { event: 'pageview' } });
  });
});

describe('buildEvent: deeply nested properties', () => {
  const nested = (levels: number): Record<string, unknown> => {
    let value: Record<string, unknown> = { leaf: '}"]\\' };
    for (let i = 1; i < levels; i++) value = { a: value };
    return value;
  };

  it('stages properties nested 124 levels deep (all PostHog leaves them), and rejects deeper ones as too_deep', () => {
    expect(buildEvent(candidate({ properties: nested(124) }), rules).type).toBe('event');
    expect(buildEvent(candidate({ properties: nested(125) }), rules)).toMatchObject({
      type: 'rejected',
      problem: { reason: 'too_deep', field: 'properties', message: expect.stringContaining('properties nest 125 levels deep; PostHog accepts at most 124') },
    });
  });

  it('counts lists as levels, and brackets inside strings as nothing', () => {
    let list: unknown = 1;
    for (let i = 1; i < 124; i++) list = [list];
    expect(buildEvent(candidate({ properties: { a: list } }), rules).type).toBe('event');
    expect(buildEvent(candidate({ properties: { a: [list] } }), rules)).toMatchObject({ problem: { reason: 'too_deep' } });
    expect(buildEvent(candidate({ properties: { text: '['.repeat(500) } }), rules).type).toBe('event');
  });
});
