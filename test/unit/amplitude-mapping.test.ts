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
  platform: 'Web', os_name: 'Firefox', os_version: '129', device_type: 'Windows',
  country: 'Germany', region: 'Bavaria', city: 'München', ip_address: '203.0.113.7', event_id: 12, session_id: 1756717069703, amplitude_id: 880000001,
  event_properties: {
    '[Amplitude] Page Location': 'https://shop.example.com/pricing?utm_source=newsletter', '[Amplitude] Page URL': 'https://shop.example.com/pricing',
    '[Amplitude] Page Domain': 'shop.example.com', '[Amplitude] Page Path': '/pricing', '[Amplitude] Page Title': 'Preise', '[Amplitude] Page Counter': 2,
    referrer: 'https://www.google.com/', cart: { items: [{ id: 'SKU-1' }] },
  },
  user_properties: { plan: 'pro', '名前': 'ana', initial_referrer: 'https://www.google.com/', initial_utm_source: 'EMPTY' },
  groups: { company: ['Acme GmbH'], team: ['a', 'b'] },
  server_received_time: '2025-09-01 09:15:05.000000', $insert_id: 'x', library: 'amplitude-ts/2.11.1', data: { path: '/2/httpapi' },
};

describe('Amplitude mapping: what is staged', () => {
  it('maps a web page view the way PostHog does', () => {
    const staged = stagedEvent(stage(webPageView));
    expect(staged).toMatchObject({ event: '$pageview', distinctId: 'ana@example.com', timestamp: '2025-09-01T09:15:02.123Z', uuid: UUID });
    expect(staged.properties).toEqual({
      $current_url: 'https://shop.example.com/pricing?utm_source=newsletter', '[Amplitude] Page URL': 'https://shop.example.com/pricing',
      $host: 'shop.example.com', $pathname: '/pricing', title: 'Preise', '[Amplitude] Page Counter': 2, $referrer: 'https://www.google.com/',
      cart: { items: [{ id: 'SKU-1' }] },
      $amplitude_user_id: 'ana@example.com', $amplitude_device_id: 'dev-1', $device_id: 'dev-1', $amplitude_event_id: 12, $amplitude_session_id: 1756717069703,
      $geoip_country_name: 'Germany', $geoip_subdivision_1_name: 'Bavaria', $geoip_city_name: 'München', $ip: '203.0.113.7',
      $browser: 'Firefox', $browser_version: '129', $os: 'Windows', $device_type: 'Desktop',
      $groups: { company: 'Acme GmbH' },
      $set: { plan: 'pro', '名前': 'ana' },
      $set_once: { $initial_referrer: 'https://www.google.com/' },
    });
  });

  it('maps an app event: os_name is the operating system there', () => {
    const staged = stagedEvent(stage({ platform: 'iOS', os_name: 'ios', os_version: '17.5.1', device_model: 'iPhone15,2', device_manufacturer: 'Apple', device_type: 'Apple iPhone 14 Pro', version_name: '3.4.1' }));
    expect(staged.properties).toMatchObject({ $os: 'ios', $os_version: '17.5.1', $device_model: 'iPhone15,2', $device_manufacturer: 'Apple', $device_type: 'Mobile', $app_version: '3.4.1' });
    expect(staged.properties).not.toHaveProperty('$browser');
  });

  it.each<[string, unknown, string]>([
    ['microseconds, as UTC', '2025-09-01 09:15:02.123456', '2025-09-01T09:15:02.123Z'],
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
    ['no event_time', { event_time: null }, 'missing_timestamp', 'event_time'],
    ['no event_type', { event_type: null }, 'missing_event', 'event_type'],
    ['a uuid that is not one', { uuid: 'not-a-uuid' }, 'bad_uuid', 'uuid'],
  ])('rejects %s', (_name, overrides, reason, field) => {
    expect(stage(overrides)).toMatchObject({ type: 'rejected', reason, field });
  });
});

describe('Amplitude mapping: uuids', () => {
  it('keeps the uuid, in lowercase', () => {
    expect(stagedEvent(stage({ uuid: UUID.toUpperCase() })).uuid).toBe(UUID);
  });

  it('derives one from the whole record when there is none, the same in any key order', () => {
    const a = stagedEvent(stage({ uuid: null, event_properties: { a: 1, b: 2 } }));
    const b = stagedEvent(mapAndBuild(mapAmplitude({ event_properties: { b: 2, a: 1 }, uuid: null, event_time: '2025-09-01 09:15:02.123456', device_id: 'dev-1', user_id: 'ana@example.com', event_type: 'Purchase' })));
    expect(a.uuid).toBe(b.uuid);
    expect(a.uuid).not.toBe(stagedEvent(stage({ uuid: null, event_properties: { a: 2 } })).uuid);
  });
});
