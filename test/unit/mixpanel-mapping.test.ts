import { describe, expect, it } from 'vitest';
import { createZoneConverter } from '../../src/events/time-zone.js';
import { mapMixpanel, MIXPANEL_EVENT_RENAMES } from '../../src/sources/vendors/mixpanel.js';
import { mapAndBuild, stagedEvent, type Staged } from '../helpers/map-and-build.js';

type Record_ = Record<string, unknown>;

function stage(record: Record_, zone?: string): Staged {
  return mapAndBuild(mapMixpanel(record, zone ? createZoneConverter(zone) : undefined), MIXPANEL_EVENT_RENAMES);
}

function event(properties: Record_, name = 'Signed Up'): Record_ {
  return { event: name, properties: { time: 1756720800, distinct_id: 'ana@example.com', ...properties } };
}

describe('Mixpanel mapping: what is staged', () => {
  it('maps a web page view the way PostHog does', () => {
    const staged = stagedEvent(
      stage(
        event(
          {
            $insert_id: 'a1b2',
            $city: 'München',
            $region: 'Bavaria',
            mp_country_code: 'DE',
            $current_url: 'https://shop.example.com/blog/東京?x=1',
            mp_processing_time_ms: 1,
            $mp_api_endpoint: 'api-js.mixpanel.com',
            $mp_api_timestamp_ms: 2,
            $geo_source: 'reverse_geocoding',
            token: 'secret-token',
            items: [{ sku: 'A', qty: 1 }],
            $browser: 'Chrome',
          },
          '$mp_web_page_view',
        ),
      ),
    );
    expect(staged).toMatchObject({ event: '$pageview', distinctId: 'ana@example.com', timestamp: '2025-09-01T10:00:00.000Z' });
    expect(staged.properties).toEqual({
      $geoip_city_name: 'München',
      $geoip_subdivision_1_name: 'Bavaria',
      $geoip_country_code: 'DE',
      $geoip_country_name: 'Germany',
      $current_url: 'https://shop.example.com/blog/東京?x=1',
      $host: 'shop.example.com',
      $pathname: '/blog/%E6%9D%B1%E4%BA%AC',
      items: [{ sku: 'A', qty: 1 }],
      $browser: 'Chrome',
    });
  });

  it.each<[string, unknown, string]>([
    ['epoch seconds', 1756720800, '2025-09-01T10:00:00.000Z'],
    ['epoch milliseconds (time_in_ms)', 1756720800123, '2025-09-01T10:00:00.123Z'],
    ['fractional seconds', 1756720800.5, '2025-09-01T10:00:00.500Z'],
    ['seconds as digits', '1756720800', '2025-09-01T10:00:00.000Z'],
  ])('reads time in %s', (_name, time, expected) => {
    expect(stagedEvent(stage(event({ time }))).timestamp).toBe(expected);
  });

  it.each<[string, Record_, string]>([
    ['distinct_id', { distinct_id: 'u-1', $user_id: 'u-2', $device_id: 'd-1' }, 'u-1'],
    ['$user_id when distinct_id is empty', { distinct_id: '', $user_id: 'u-2', $device_id: 'd-1' }, 'u-2'],
    ['$device_id when neither is set', { distinct_id: null, $device_id: 'd-1' }, 'd-1'],
    ['an anonymous $device: id as it is', { distinct_id: '$device:d-1' }, '$device:d-1'],
    ['a number, as text', { distinct_id: 42 }, '42'],
  ])('takes the distinct_id from %s', (_name, properties, expected) => {
    expect(stagedEvent(stage(event(properties))).distinctId).toBe(expected);
  });

  it('never overwrites a property already named like a rename target', () => {
    const { properties } = stagedEvent(stage(event({ $city: 'Paris', $geoip_city_name: 'Lyon' })));
    expect(properties).toMatchObject({ $city: 'Paris', $geoip_city_name: 'Lyon' });
  });

  it('reads time in the project zone with --timezone (older projects), and refuses a skipped hour', () => {
    // 2025-09-01 10:00 as New York wall-clock time is 14:00 UTC.
    expect(stagedEvent(stage(event({}), 'America/New_York')).timestamp).toBe('2025-09-01T14:00:00.000Z');
    const gap = Date.UTC(2025, 2, 9, 2, 30) / 1000;
    expect(stage(event({ time: gap }), 'America/New_York')).toMatchObject({ type: 'rejected', reason: 'nonexistent_local_time', field: 'properties.time' });
  });

  it.each<[string, Record_, string, string]>([
    ['no properties', { event: 'e' }, 'bad_properties', 'properties'],
    ['properties not an object', { event: 'e', properties: [1, 2] }, 'bad_properties', 'properties'],
    ['no time', { event: 'e', properties: { distinct_id: 'u' } }, 'missing_timestamp', 'properties.time'],
    ['a time not understood', { event: 'e', properties: { time: 'yesterday', distinct_id: 'u' } }, 'bad_timestamp', 'properties.time'],
    ['a time in the future', { event: 'e', properties: { time: 4102444800, distinct_id: 'u' } }, 'future_timestamp', 'properties.time'],
    ['no distinct_id anywhere', { event: 'e', properties: { time: 1756720800, distinct_id: '' } }, 'missing_distinct_id', 'properties.distinct_id'],
    ['no event name', { properties: { time: 1756720800, distinct_id: 'u' } }, 'missing_event', 'event'],
  ])('rejects %s', (_name, record, reason, field) => {
    expect(stage(record)).toMatchObject({ type: 'rejected', reason, field });
  });
});

describe('Mixpanel mapping: uuids', () => {
  const uuid = (record: Record_) => stagedEvent(stage(record)).uuid;
  const base = event({ $insert_id: 'ins-1', plan: 'pro' });

  it('derives the uuid from $insert_id, event, distinct_id and the second, whatever else differs', () => {
    expect(uuid(event({ $insert_id: 'ins-1', plan: 'free', mp_processing_time_ms: 9 }))).toBe(uuid(base));
    expect(uuid(event({ $insert_id: 'ins-1', time: 1756720800999 }))).toBe(uuid(base));
    expect(uuid(base)).toMatch(/^019904b8-2100-7/);
  });

  it.each<[string, Record_]>([
    ['another $insert_id', event({ $insert_id: 'ins-2' })],
    ['another distinct_id', event({ $insert_id: 'ins-1', distinct_id: 'bo' })],
    ['another event name', event({ $insert_id: 'ins-1' }, 'Logged In')],
    ['another second', event({ $insert_id: 'ins-1', time: 1756720801 })],
  ])('gives a different uuid for %s', (_name, record) => {
    expect(uuid(record)).not.toBe(uuid(base));
  });

  it('without $insert_id derives it from the whole record, in any key order', () => {
    const a = { event: 'e', properties: { time: 1756720800, distinct_id: 'u', a: 1, b: { c: 2, d: 3 } } };
    const b = { properties: { b: { d: 3, c: 2 }, a: 1, distinct_id: 'u', time: 1756720800 }, event: 'e' };
    expect(uuid(a)).toBe(uuid(b));
    expect(uuid(a)).not.toBe(uuid({ ...a, properties: { ...a.properties, a: 2 } }));
  });
});
