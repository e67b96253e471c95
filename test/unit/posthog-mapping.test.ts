import { describe, expect, it } from 'vitest';
import { mapPostHog } from '../../src/sources/vendors/posthog.js';
import { mapAndBuild, stagedEvent, type Staged } from '../helpers/map-and-build.js';

type Record_ = Record<string, unknown>;

const UUID = '01990b6a-7c00-7a1b-8c2d-3e4f5a6b7c8d';

function stage(overrides: Record_ = {}): Staged {
  const record = {
    uuid: UUID,
    event: '$autocapture',
    distinct_id: 'ana@example.com',
    timestamp: '2025-09-01T10:00:00.123456Z',
    properties: { $current_url: 'https://shop.example.com/', $event_type: 'click', order: { lines: [{ sku: 'A' }] } },
    elements_chain: 'button.btn:text="Jetzt kaufen"nth-child="2"',
    set: {},
    set_once: {},
    person_id: 'b5f3d1e2-0000-4000-8000-000000000001',
    person_properties: { email: 'ana@example.com' },
    team_id: 2,
    created_at: '2025-09-01T10:00:01.000000Z',
    _inserted_at: '2025-09-01T10:00:02.000000Z',
    site_url: '',
    ip: '198.51.100.7',
    ...overrides,
  };
  return mapAndBuild(mapPostHog(record));
}

describe('PostHog export mapping: what is staged', () => {
  it('keeps the event as it was captured, and leaves out what PostHog computes on arrival', () => {
    const staged = stagedEvent(stage());
    expect(staged).toMatchObject({ uuid: UUID, event: '$autocapture', distinctId: 'ana@example.com', timestamp: '2025-09-01T10:00:00.123456Z' });
    expect(staged.properties).toEqual({
      $current_url: 'https://shop.example.com/',
      $event_type: 'click',
      order: { lines: [{ sku: 'A' }] },
      $elements_chain: 'button.btn:text="Jetzt kaufen"nth-child="2"',
      $ip: '198.51.100.7',
    });
  });

  it.each<[string, Record_, Record_]>([
    [
      'set and set_once go where PostHog reads them',
      { set: { plan: 'pro' }, set_once: { first: 'x' }, properties: {}, elements_chain: '', ip: null },
      { $set: { plan: 'pro' }, $set_once: { first: 'x' } },
    ],
    ['properties written as JSON text are read', { properties: '{"a":1,"b":{"c":"ü"}}', elements_chain: '', ip: null }, { a: 1, b: { c: 'ü' } }],
    ['a property wins over the top-level field', { properties: { $ip: '10.0.0.1' }, elements_chain: '' }, { $ip: '10.0.0.1' }],
    [
      "the source's group slots are left for the destination to derive from $groups",
      { properties: '{"$groups":{"company":"acme"},"$group_1":"acme","$group_0":"red","$group_5":"kept"}', elements_chain: '', ip: null },
      { $groups: { company: 'acme' }, $group_5: 'kept' },
    ],
  ])('%s', (_name, overrides, expected) => {
    expect(stagedEvent(stage(overrides)).properties).toEqual(expected);
  });

  it.each<[string, unknown, string]>([
    ['with Z and microseconds', '2025-09-01T10:00:00.123456Z', '2025-09-01T10:00:00.123456Z'],
    ['without a zone, as UTC', '2025-09-01 10:00:00.123456', '2025-09-01T10:00:00.123456Z'],
    ['with an offset', '2025-09-01T12:00:00+02:00', '2025-09-01T10:00:00.000Z'],
  ])('reads a timestamp %s', (_name, timestamp, expected) => {
    expect(stagedEvent(stage({ timestamp })).timestamp).toBe(expected);
  });

  it('takes distinct_id from the properties when the top level has none', () => {
    expect(stagedEvent(stage({ distinct_id: null, properties: { distinct_id: 'inner' } })).distinctId).toBe('inner');
  });

  it('derives a uuid from the record when there is none', () => {
    const a = stagedEvent(stage({ uuid: null }));
    expect(a.uuid).not.toBe(UUID);
    expect(stagedEvent(stage({ uuid: null })).uuid).toBe(a.uuid);
  });

  it.each<[string, Record_, string, string]>([
    ['a uuid that is not one', { uuid: 'not-a-uuid' }, 'bad_uuid', 'uuid'],
    ['no distinct_id', { distinct_id: '' }, 'missing_distinct_id', 'distinct_id'],
    ['properties not an object', { properties: [1] }, 'bad_properties', 'properties'],
    ['properties text that is not an object', { properties: '[1]' }, 'bad_properties', 'properties'],
    ['no event name', { event: '' }, 'missing_event', 'event'],
    ['a timestamp in the future', { timestamp: '2999-01-01T00:00:00Z' }, 'future_timestamp', 'timestamp'],
  ])('rejects %s', (_name, overrides, reason, field) => {
    expect(stage(overrides)).toMatchObject({ type: 'rejected', reason, field });
  });
});
