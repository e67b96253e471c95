import { describe, expect, it } from 'vitest';
import type { MappingFile } from '../../src/events/name-map.js';
import { AMPLITUDE_EVENT_RENAMES, mapAmplitude } from '../../src/sources/vendors/amplitude.js';
import { mapAndBuild, stagedEvent, type Staged } from '../helpers/map-and-build.js';

type Record_ = Record<string, unknown>;

const UUID = '4b1393cc-b7f8-431b-8f05-acdbdc226a73';

function stage(overrides: Record_ = {}, mapping?: MappingFile): Staged {
  const record = { event_type: 'Purchase', user_id: 'ana@example.com', device_id: 'dev-1', event_time: '2025-09-01 09:15:02.123456', uuid: UUID, event_properties: {}, ...overrides };
  return mapAndBuild(mapAmplitude(record), AMPLITUDE_EVENT_RENAMES, mapping);
}

const webPageView: Record_ = {
  event_type: '[Amplitude] Page Viewed',
  platform: 'Web',
  os_name: 'Firefox',
  os_version: '129',
  device_type: 'Windows',
  country: 'Germany',
  region: 'Bavaria',
  city: 'München',
  ip_address: '203.0.113.7',
  event_id: 12,
  session_id: 1756717069703,
  amplitude_id: 880000001,
  event_properties: {
    '[Amplitude] Page Location': 'https://shop.example.com/pricing?utm_source=newsletter',
    '[Amplitude] Page URL': 'https://shop.example.com/pricing',
    '[Amplitude] Page Domain': 'shop.example.com',
    '[Amplitude] Page Path': '/pricing',
    '[Amplitude] Page Title': 'Preise',
    '[Amplitude] Page Counter': 2,
    referrer: 'https://www.google.com/',
    cart: { items: [{ id: 'SKU-1' }] },
  },
  user_properties: { plan: 'pro', 名前: 'ana', initial_referrer: 'https://www.google.com/', initial_utm_source: 'EMPTY' },
  groups: { company: ['Acme GmbH'], team: ['a', 'b'] },
  server_received_time: '2025-09-01 09:15:05.000000',
  $insert_id: 'x',
  library: 'amplitude-ts/2.11.1',
  data: { path: '/2/httpapi' },
};

describe('Amplitude mapping: what is staged', () => {
  it('maps a web page view the way PostHog does', () => {
    const staged = stagedEvent(stage(webPageView));
    expect(staged).toMatchObject({ event: '$pageview', distinctId: 'ana@example.com', timestamp: '2025-09-01T09:15:02.123456Z', uuid: UUID });
    expect(staged.properties).toEqual({
      $current_url: 'https://shop.example.com/pricing?utm_source=newsletter',
      '[Amplitude] Page URL': 'https://shop.example.com/pricing',
      $host: 'shop.example.com',
      $pathname: '/pricing',
      title: 'Preise',
      '[Amplitude] Page Counter': 2,
      $referrer: 'https://www.google.com/',
      cart: { items: [{ id: 'SKU-1' }] },
      $amplitude_user_id: 'ana@example.com',
      $amplitude_device_id: 'dev-1',
      $device_id: 'dev-1',
      $amplitude_event_id: 12,
      $amplitude_session_id: 1756717069703,
      $geoip_country_name: 'Germany',
      $geoip_subdivision_1_name: 'Bavaria',
      $geoip_city_name: 'München',
      $ip: '203.0.113.7',
      $browser: 'Firefox',
      $browser_version: '129',
      $os: 'Windows',
      $device_type: 'Desktop',
      $session_id: expect.stringMatching(/^0199047f-3587-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      $groups: { company: 'Acme GmbH', team: 'a' },
      $set: { plan: 'pro', 名前: 'ana' },
      $set_once: { $initial_referrer: 'https://www.google.com/' },
    });
  });

  it('maps an app event: os_name is the operating system there', () => {
    const staged = stagedEvent(
      stage({ platform: 'iOS', os_name: 'ios', os_version: '17.5.1', device_model: 'iPhone15,2', device_manufacturer: 'Apple', device_type: 'Apple iPhone 14 Pro', version_name: '3.4.1' }),
    );
    expect(staged.properties).toMatchObject({ $os: 'ios', $os_version: '17.5.1', $device_model: 'iPhone15,2', $device_manufacturer: 'Apple', $device_type: 'Mobile', $app_version: '3.4.1' });
    expect(staged.properties).not.toHaveProperty('$browser');
  });

  it.each<[string, unknown, string]>([
    ['microseconds, as UTC', '2025-09-01 09:15:02.123456', '2025-09-01T09:15:02.123456Z'],
    ['whole seconds', '2025-09-01 23:59:59', '2025-09-01T23:59:59.000Z'],
    ['an explicit offset, as given', '2025-09-01T09:15:02+02:00', '2025-09-01T07:15:02.000Z'],
    ['epoch milliseconds', 1756718102123, '2025-09-01T09:15:02.123Z'],
  ])('reads event_time in %s', (_name, eventTime, expected) => {
    expect(stagedEvent(stage({ event_time: eventTime })).timestamp).toBe(expected);
  });

  it.each<[string, Record_, string]>([
    ['user_id', {}, 'ana@example.com'],
    ['device_id when user_id is null', { user_id: null }, 'dev-1'],
    ['device_id when user_id is empty', { user_id: '' }, 'dev-1'],
  ])('takes the distinct_id from %s', (_name, overrides, expected) => {
    expect(stagedEvent(stage(overrides)).distinctId).toBe(expected);
  });

  it.each<[string, string, string | null]>([
    ['[Amplitude] Element Clicked', '$autocapture', null],
    ['[Amplitude] Screen Viewed', '$screen', null],
    ['Song Played', 'Song Played', null],
  ])('names %s as %s', (source, expected) => {
    expect(stagedEvent(stage({ event_type: source })).event).toBe(expected);
  });

  it('drops session_start and session_end, unless a mapping file keeps them', () => {
    expect(stage({ event_type: 'session_start' })).toEqual({ type: 'skipped' });
    expect(stage({ event_type: 'session_end' })).toEqual({ type: 'skipped' });
    const kept = stage({ event_type: 'session_start' }, { replaceDefaults: false, events: { session_start: 'session_start' }, properties: {} });
    expect(stagedEvent(kept).event).toBe('session_start');
  });

  it('lets an event property win over a field of the same PostHog name', () => {
    expect(stagedEvent(stage({ ip_address: '203.0.113.7', event_properties: { $ip: '10.0.0.1' } })).properties.$ip).toBe('10.0.0.1');
  });

  it.each<[string, Record_, string, string]>([
    ['neither user_id nor device_id', { user_id: null, device_id: null }, 'missing_distinct_id', 'user_id, device_id'],
    ['event_properties not an object', { event_properties: 'oops' }, 'bad_properties', 'event_properties'],
    ['user_properties not an object', { user_properties: [1] }, 'bad_properties', 'user_properties'],
    ['an impossible event_time', { event_time: '2025-09-31 10:00:00.000000' }, 'bad_timestamp', 'event_time'],
    ['no time at all', { event_time: null }, 'missing_timestamp', 'event_time'],
    ['a bad client_event_time taken for a missing event_time', { event_time: null, client_event_time: 'soon' }, 'bad_timestamp', 'client_event_time'],
    ['no event_type', { event_type: null }, 'missing_event', 'event_type'],
    ['a uuid that is not one', { uuid: 'not-a-uuid' }, 'bad_uuid', 'uuid'],
  ])('rejects %s', (_name, overrides, reason, field) => {
    expect(stage(overrides)).toMatchObject({ type: 'rejected', reason, field });
  });
});

describe("Amplitude mapping: times PostHog's importer falls back to", () => {
  const times = { client_event_time: '2025-09-01 09:15:01.000000', server_received_time: '2025-09-01 09:15:04.000000' };

  it.each<[string, Record_, string, string | undefined]>([
    ['event_time when there is one', { ...times }, '2025-09-01T09:15:02.123456Z', undefined],
    ['client_event_time without event_time', { ...times, event_time: null }, '2025-09-01T09:15:01.000Z', 'time_from_client_event_time'],
    ['server_received_time without either', { ...times, event_time: '', client_event_time: null }, '2025-09-01T09:15:04.000Z', 'time_from_server_received_time'],
  ])('takes %s, noted for the summary', (_name, overrides, timestamp, note) => {
    const record = { event_type: 'Purchase', user_id: 'ana@example.com', event_time: '2025-09-01 09:15:02.123456', uuid: UUID, ...overrides };
    const candidate = mapAmplitude(record);
    expect(stagedEvent(mapAndBuild(candidate)).timestamp).toBe(timestamp);
    expect('notes' in candidate ? candidate.notes : undefined).toEqual(note === undefined ? undefined : [{ code: note }]);
  });

  it('rejects an event without event_time under --strict-time, as before', () => {
    expect(mapAndBuild(mapAmplitude({ event_type: 'Purchase', user_id: 'ana', uuid: UUID, ...times }, true))).toMatchObject({ type: 'rejected', reason: 'missing_timestamp', field: 'event_time' });
  });
});

describe('Amplitude mapping: sessions PostHog can read', () => {
  const session = (overrides: Record_): unknown => stagedEvent(stage({ session_id: 1756717069703, ...overrides })).properties.$session_id;

  it('makes session_id a UUIDv7 whose time is the session start', () => {
    const id = session({}) as string;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(1756717069703);
    expect(stagedEvent(stage({ session_id: 1756717069703 })).properties.$amplitude_session_id).toBe(1756717069703);
  });

  it('gives one session every event of it, two devices two sessions, and the user when there is no device', () => {
    expect(session({ event_type: 'Other', uuid: '5b1393cc-b7f8-431b-8f05-acdbdc226a73' })).toBe(session({}));
    expect(session({ device_id: 'dev-2' })).not.toBe(session({}));
    expect(session({ device_id: null })).not.toBe(session({}));
    expect(session({ device_id: null })).toBe(session({ device_id: null, event_type: 'Other' }));
  });

  it.each<[string, unknown]>([
    ['-1 (no session)', -1],
    ['no session_id', null],
    ['text', 'abc'],
    ['a fraction', 1.5],
  ])('gives no $session_id for %s', (_name, value) => {
    expect(stagedEvent(stage({ session_id: value })).properties).not.toHaveProperty('$session_id');
  });

  it('lets an event property $session_id win', () => {
    expect(stagedEvent(stage({ session_id: 1756717069703, event_properties: { $session_id: 'mine' } })).properties.$session_id).toBe('mine');
  });
});

describe('Amplitude mapping: groups', () => {
  it.each<[string, unknown, unknown, boolean]>([
    ['one key', { company: ['acme'] }, { company: 'acme' }, false],
    ['a key that is not in a list', { company: 'acme' }, { company: 'acme' }, false],
    ['the first of two keys, noted', { company: ['acme', 'globex'], team: ['a'] }, { company: 'acme', team: 'a' }, true],
    ['a number key as text', { org: [42] }, { org: '42' }, false],
    ['no usable key', { company: [], team: [null] }, undefined, false],
  ])('$groups from groups: %s', (_name, groups, expected, noted) => {
    const candidate = mapAmplitude({ event_type: 'Purchase', user_id: 'ana', event_time: '2025-09-01 09:15:02', uuid: UUID, groups });
    expect(stagedEvent(mapAndBuild(candidate)).properties.$groups).toEqual(expected);
    expect(('notes' in candidate ? (candidate.notes ?? []) : []).some((n) => n.code === 'several_group_keys')).toBe(noted);
  });

  it.each<[string, Record_, unknown]>([
    ['by type and key', { group_properties: { company: { acme: { name: 'Acme', size: 50 } } } }, [{ type: 'company', key: 'acme', properties: { name: 'Acme', size: 50 } }]],
    [
      "for the event's key when a type holds the properties",
      { groups: { company: ['acme'] }, group_properties: { company: { name: 'Acme' } } },
      [{ type: 'company', key: 'acme', properties: { name: 'Acme' } }],
    ],
    ['none from empty properties', { group_properties: { company: { acme: {} } } }, undefined],
    ['none when there are none', { group_properties: {} }, undefined],
  ])('group properties: %s', (_name, overrides, expected) => {
    const candidate = mapAmplitude({ event_type: 'Purchase', user_id: 'ana', event_time: '2025-09-01 09:15:02', uuid: UUID, ...overrides });
    expect('groupProperties' in candidate ? candidate.groupProperties : undefined).toEqual(expected);
  });
});

describe('Amplitude mapping: uuids', () => {
  it('keeps the uuid, in lowercase', () => {
    expect(stagedEvent(stage({ uuid: UUID.toUpperCase() })).uuid).toBe(UUID);
  });

  it('derives one from the whole record when there is none, the same in any key order', () => {
    const a = stagedEvent(stage({ uuid: null, event_properties: { a: 1, b: 2 } }));
    const b = stagedEvent(
      mapAndBuild(mapAmplitude({ event_properties: { b: 2, a: 1 }, uuid: null, event_time: '2025-09-01 09:15:02.123456', device_id: 'dev-1', user_id: 'ana@example.com', event_type: 'Purchase' })),
    );
    expect(a.uuid).toBe(b.uuid);
    expect(a.uuid).not.toBe(stagedEvent(stage({ uuid: null, event_properties: { a: 2 } })).uuid);
  });
});
