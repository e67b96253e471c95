import { describe, expect, it } from 'vitest';
import { isUuidV7, sessionUuid } from '../../src/events/derived-uuids.js';
import { flattenGa4Params } from '../../src/sources/vendors/ga4-params.js';
import { GA4_EVENT_RENAMES, mapGa4 } from '../../src/sources/vendors/ga4.js';
import { ga4SessionId } from '../../src/sources/vendors/ga4-session.js';
import { mapAndBuild, stagedEvent, type Staged } from '../helpers/map-and-build.js';

type Record_ = Record<string, unknown>;

const str = (key: string, value: string) => ({ key, value: { string_value: value, int_value: null, float_value: null, double_value: null } });
const int = (key: string, value: string | number) => ({ key, value: { int_value: value } });

const webDevice = {
  category: 'desktop',
  mobile_brand_name: 'Apple',
  mobile_model_name: 'Safari',
  mobile_marketing_name: '(not set)',
  operating_system: 'Macintosh',
  operating_system_version: 'Macintosh Intel 10.15',
  language: 'de-de',
  is_limited_ad_tracking: 'No',
  vendor_id: null,
  browser: null,
  web_info: { browser: 'Safari', browser_version: '17.5', hostname: 'shop.example.com' },
};

function row(overrides: Record_ = {}): Record_ {
  return {
    event_date: '20250901',
    event_timestamp: '1756718102123456',
    event_name: 'page_view',
    event_params: [
      str('page_location', 'https://shop.example.com/pricing?utm_source=news'),
      str('page_title', 'Preise'),
      str('page_referrer', 'https://www.google.com/'),
      int('ga_session_id', '1756718000'),
      int('ga_session_number', '3'),
      int('engagement_time_msec', '1500'),
    ],
    event_previous_timestamp: null,
    event_bundle_sequence_id: '17',
    event_server_timestamp_offset: '512000',
    user_id: 'crm-1000',
    user_pseudo_id: '539614342.1754092800',
    user_properties: [str('plan', 'pro'), int('signup_year', '2024')],
    user_first_touch_timestamp: '1754092800123456',
    device: webDevice,
    geo: { city: 'München', country: 'Germany', continent: 'Europe', region: 'Bavaria', sub_continent: 'Western Europe', metro: '(not set)' },
    traffic_source: { name: 'autumn-sale', medium: 'email', source: 'newsletter' },
    stream_id: '4567890123',
    platform: 'WEB',
    collected_traffic_source: { manual_campaign_name: 'autumn-sale', manual_source: 'news', manual_medium: 'email', manual_term: null, gclid: 'g-1', srsltid: 's-1' },
    items: [],
    ecommerce: null,
    batch_event_index: '0',
    batch_page_id: '1756718102000',
    batch_ordering_id: '1',
    is_active_user: true,
    ...overrides,
  };
}

function stage(overrides: Record_ = {}): Staged {
  return mapAndBuild(mapGa4(row(overrides)), GA4_EVENT_RENAMES);
}

describe('GA4 mapping: what is staged', () => {
  it('maps a web page view the way PostHog would have captured it', () => {
    const staged = stagedEvent(stage());
    expect(staged).toMatchObject({ event: '$pageview', distinctId: 'crm-1000', timestamp: '2025-09-01T09:15:02.123456Z' });
    expect(staged.properties).toEqual({
      $current_url: 'https://shop.example.com/pricing?utm_source=news',
      title: 'Preise',
      $referrer: 'https://www.google.com/',
      $ga_session_id: 1756718000,
      ga_session_number: 3,
      engagement_time_msec: 1500,
      $host: 'shop.example.com',
      $pathname: '/pricing',
      $referring_domain: 'www.google.com',
      $browser: 'Safari',
      $browser_version: '17.5',
      $os: 'Mac OS X',
      $os_version: 'Macintosh Intel 10.15',
      $device_manufacturer: 'Apple',
      $device_model: 'Safari',
      $device_type: 'Desktop',
      $browser_language: 'de-de',
      $geoip_country_name: 'Germany',
      $geoip_subdivision_1_name: 'Bavaria',
      $geoip_city_name: 'München',
      $geoip_continent_name: 'Europe',
      utm_source: 'news',
      utm_medium: 'email',
      utm_campaign: 'autumn-sale',
      gclid: 'g-1',
      ga4_device: { mobile_marketing_name: '(not set)', is_limited_ad_tracking: 'No' },
      ga4_geo: { sub_continent: 'Western Europe', metro: '(not set)' },
      ga4_collected_traffic_source: { srsltid: 's-1' },
      ga4_user_pseudo_id: '539614342.1754092800',
      $set: { plan: 'pro', signup_year: 2024 },
      $set_once: { $initial_utm_source: 'newsletter', $initial_utm_medium: 'email', $initial_utm_campaign: 'autumn-sale', ga4_first_touch_time: '2025-08-02T00:00:00.123456Z' },
      ga4_stream_id: '4567890123',
      ga4_platform: 'WEB',
      ga4_is_active_user: true,
      $session_id: ga4SessionId('539614342.1754092800', 1756718000),
    });
  });

  it('maps an app screen view: $screen, $screen_name, app and device fields, $locale', () => {
    const staged = stagedEvent(
      stage({
        event_name: 'screen_view',
        platform: 'IOS',
        event_params: [str('firebase_screen', 'Player'), str('firebase_screen_class', 'PlayerViewController'), int('firebase_screen_id', '-3820393876329286712')],
        device: {
          category: 'mobile',
          mobile_brand_name: 'Apple',
          mobile_model_name: 'iPhone 14 Pro',
          operating_system: 'iOS',
          operating_system_version: 'iOS 17.5.1',
          language: 'ja-jp',
          web_info: null,
        },
        app_info: { id: 'com.example.musikbox', version: '3.4.1', install_source: 'com.apple.AppStore' },
      }),
    );
    expect(staged.event).toBe('$screen');
    expect(staged.properties).toMatchObject({
      $screen_name: 'Player',
      firebase_screen_class: 'PlayerViewController',
      firebase_screen_id: '-3820393876329286712',
      $os: 'iOS',
      $device_model: 'iPhone 14 Pro',
      $device_type: 'Mobile',
      $locale: 'ja-jp',
      $app_version: '3.4.1',
      $app_namespace: 'com.example.musikbox',
      ga4_app_info: { install_source: 'com.apple.AppStore' },
    });
    expect(staged.properties).not.toHaveProperty('$browser_language');
  });

  it.each<[string, string]>([
    ['session_start', 'session_start'],
    ['first_visit', 'first_visit'],
    ['user_engagement', 'user_engagement'],
    ['purchase', 'purchase'],
  ])('keeps %s as an event', (name, expected) => {
    expect(stagedEvent(stage({ event_name: name })).event).toBe(expected);
  });

  it.each<[string, Record_, string]>([
    ['user_id', {}, 'crm-1000'],
    ['user_pseudo_id when user_id is null', { user_id: null }, '539614342.1754092800'],
    ['user_pseudo_id when there is no user_id', { user_id: undefined }, '539614342.1754092800'],
  ])('takes the distinct_id from %s', (_name, overrides, expected) => {
    const staged = stagedEvent(stage(overrides));
    expect(staged.distinctId).toBe(expected);
    expect(Object.hasOwn(staged.properties, 'ga4_user_pseudo_id')).toBe(expected === 'crm-1000');
  });

  it.each<[string, unknown, string]>([
    ['digits, as BigQuery JSON writes INT64', '1756718102123999', '2025-09-01T09:15:02.123999Z'],
    ['a number', 1756718102123456, '2025-09-01T09:15:02.123456Z'],
    ['a TIMESTAMP column with its zone', '2025-09-01 09:15:02.123456 UTC', '2025-09-01T09:15:02.123456Z'],
    ['whole milliseconds', '1756718102123000', '2025-09-01T09:15:02.123Z'],
  ])('reads event_timestamp in microseconds from %s, every microsecond kept', (_name, value, expected) => {
    expect(stagedEvent(stage({ event_timestamp: value })).timestamp).toBe(expected);
  });

  it.each<[string, Record_, Record_]>([
    ['Macintosh as Mac OS X', { operating_system: 'Macintosh' }, { $os: 'Mac OS X' }],
    ['Edge as Microsoft Edge', { web_info: { browser: 'Edge', browser_version: '128.0' } }, { $browser: 'Microsoft Edge', $browser_version: '128.0' }],
    ['other names as they are', { operating_system: 'Windows', web_info: { browser: 'Firefox' } }, { $os: 'Windows', $browser: 'Firefox' }],
  ])('names %s, as PostHog SDKs do', (_name, device, expected) => {
    expect(stagedEvent(stage({ device: { ...webDevice, ...device } })).properties).toMatchObject(expected);
  });

  it('maps placeholders to nothing: "(not set)" fields, "(direct)" sources', () => {
    const staged = stagedEvent(
      stage({
        geo: { city: '(not set)', country: 'Japan', region: '(not set)' },
        traffic_source: { name: '(direct)', medium: '(none)', source: '(direct)' },
        device: { ...webDevice, category: 'smart tv', mobile_brand_name: '(not set)' },
      }),
    );
    expect(staged.properties).not.toHaveProperty('$geoip_city_name');
    expect(staged.properties).not.toHaveProperty('$device_manufacturer');
    expect(staged.properties).toMatchObject({ $geoip_country_name: 'Japan', $device_type: 'TV', $set_once: { ga4_first_touch_time: '2025-08-02T00:00:00.123456Z' } });
    expect(staged.properties.$set_once).not.toHaveProperty('$initial_utm_source');
  });

  it('keeps e-commerce data, counts as numbers and item parameters as objects', () => {
    const staged = stagedEvent(
      stage({
        event_name: 'purchase',
        ecommerce: { total_item_quantity: '2', purchase_revenue: 99.8, unique_items: '1', transaction_id: 'T-1' },
        items: [{ item_id: 'SKU-1', price: 49.9, quantity: '2', item_params: [str('color', 'rot')] }],
      }),
    );
    expect(staged.properties.ecommerce).toEqual({ total_item_quantity: 2, purchase_revenue: 99.8, unique_items: 1, transaction_id: 'T-1' });
    expect(staged.properties.items).toEqual([{ item_id: 'SKU-1', price: 49.9, quantity: 2, item_params: { color: 'rot' } }]);
  });

  it('drops export bookkeeping: event_date, offsets, bundle and batch ids', () => {
    const staged = stagedEvent(stage());
    for (const key of [
      'event_date',
      'event_previous_timestamp',
      'event_server_timestamp_offset',
      'event_bundle_sequence_id',
      'batch_event_index',
      'batch_page_id',
      'batch_ordering_id',
      'items',
      'ecommerce',
    ]) {
      expect(staged.properties).not.toHaveProperty(key);
      expect(staged.properties).not.toHaveProperty(`ga4_${key}`);
    }
  });

  it('lets a parameter win over a record field of the same PostHog name', () => {
    const staged = stagedEvent(stage({ event_params: [str('utm_source', 'param'), str('$browser', 'Mine')] }));
    expect(staged.properties).toMatchObject({ utm_source: 'param', $browser: 'Mine' });
  });
});

describe('GA4 sessions', () => {
  const sessionOf = (overrides: Record_) => stagedEvent(stage(overrides)).properties.$session_id as string | undefined;
  const params = (id: string | number | null) => [str('page_location', 'https://shop.example.com/'), ...(id === null ? [] : [int('ga_session_id', id)])];

  it('gives a UUIDv7 $session_id whose time is the session start, the same for every event of the session', () => {
    const id = sessionOf({ event_params: params('1756718000') })!;
    expect(isUuidV7(id)).toBe(true);
    expect(parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(1756718000_000);
    expect(sessionOf({ event_params: params(1756718000), event_name: 'scroll', event_timestamp: '1756718100000000' })).toBe(id);
    expect(sessionOf({ event_params: params('1756718000'), user_id: null })).toBe(id);
  });

  it.each([
    ['another device, the same number', { user_pseudo_id: 'other.1' }],
    ['another session of the device', { event_params: params('1756719000') }],
  ])('%s is another session', (_name, overrides) => {
    expect(sessionOf({ event_params: params('1756718000'), ...overrides })).not.toBe(sessionOf({ event_params: params('1756718000') }));
  });

  it.each([
    ['no ga_session_id', { event_params: params(null) }],
    ['no user_pseudo_id', { event_params: params('1756718000'), user_pseudo_id: null }],
    ['a session id that is not a time', { event_params: params('-5') }],
  ])('%s: no $session_id', (_name, overrides) => {
    expect(sessionOf(overrides)).toBeUndefined();
  });
});

describe('GA4 parameters', () => {
  it.each<[string, Record_, unknown]>([
    ['a string', { string_value: 'x', int_value: null }, 'x'],
    ['an INT64 as digits', { int_value: '42' }, 42],
    ['a negative INT64', { int_value: '-7' }, -7],
    ['an INT64 as a number', { int_value: 42 }, 42],
    ['an INT64 beyond 2^53, exactly', { int_value: '9007199254740993' }, '9007199254740993'],
    ['a float', { float_value: 1.5 }, 1.5],
    ['a double written as text', { double_value: '2.25' }, 2.25],
    ['NaN as BigQuery writes it', { double_value: 'NaN' }, 'NaN'],
    ['no value at all', { string_value: null, int_value: null }, null],
  ])('reads %s', (_name, value, expected) => {
    expect(flattenGa4Params([{ key: 'p', value }], 'event_params')).toEqual({ ok: true, value: { p: expected } });
  });

  it('keeps a __proto__ key as a property', () => {
    const flat = flattenGa4Params([{ key: '__proto__', value: { string_value: 'x' } }], 'event_params');
    expect(flat.ok && Object.hasOwn(flat.value, '__proto__')).toBe(true);
  });
});

describe('GA4 mapping: uuids', () => {
  it('derives the uuid from GA4 own key: other fields do not change it', () => {
    const first = stagedEvent(stage());
    expect(stagedEvent(stage({ is_active_user: false, traffic_source: null, event_server_timestamp_offset: '1' })).uuid).toBe(first.uuid);
    expect(stagedEvent(stage({ event_bundle_sequence_id: 17 })).uuid).toBe(first.uuid); // a number or its digits
    expect(stagedEvent(stage({ batch_event_index: '1' })).uuid).not.toBe(first.uuid);
    expect(stagedEvent(stage({ event_timestamp: '1756718102123457' })).uuid).not.toBe(first.uuid);
    expect(stagedEvent(stage({ user_pseudo_id: 'other' })).uuid).not.toBe(first.uuid);
  });

  it('tells two events of one bundle at one microsecond apart by their parameters when there is no batch_event_index', () => {
    const legacy = { batch_event_index: undefined, batch_page_id: undefined, batch_ordering_id: undefined };
    const a = stagedEvent(stage({ ...legacy, event_params: [str('item_id', 'SKU-1')] }));
    const b = stagedEvent(stage({ ...legacy, event_params: [str('item_id', 'SKU-2')] }));
    const same = stagedEvent(stage({ ...legacy, event_params: [str('item_id', 'SKU-1')], is_active_user: false }));
    expect(a.uuid).not.toBe(b.uuid);
    expect(same.uuid).toBe(a.uuid);
  });

  it('derives it from the whole record without a bundle id', () => {
    const a = stagedEvent(stage({ event_bundle_sequence_id: null }));
    expect(stagedEvent(stage({ event_bundle_sequence_id: null })).uuid).toBe(a.uuid);
    expect(stagedEvent(stage({ event_bundle_sequence_id: null, is_active_user: false })).uuid).not.toBe(a.uuid);
  });
});

describe('GA4 mapping: rejects', () => {
  it.each<[string, Record_, string, string]>([
    ['neither user_id nor user_pseudo_id', { user_id: null, user_pseudo_id: null }, 'missing_distinct_id', 'user_id, user_pseudo_id'],
    ['event_params not a list', { event_params: { page_title: 'x' } }, 'bad_properties', 'event_params'],
    ['a parameter without a key', { event_params: [{ value: { string_value: 'x' } }] }, 'bad_properties', 'event_params[0]'],
    ['a parameter value that is not an object', { event_params: [{ key: 'k', value: 'x' }] }, 'bad_properties', 'event_params[0].value'],
    ['a parameter given twice', { event_params: [str('k', 'a'), str('k', 'b')] }, 'duplicate_property', 'event_params[1]'],
    ['user_properties not a list', { user_properties: 'plan=pro' }, 'bad_properties', 'user_properties'],
    ['no event_timestamp', { event_timestamp: null }, 'missing_timestamp', 'event_timestamp'],
    ['event_timestamp in milliseconds', { event_timestamp: '1756718102123' }, 'bad_timestamp', 'event_timestamp'],
    ['event_timestamp not a time', { event_timestamp: true }, 'bad_timestamp', 'event_timestamp'],
    ['no event_name', { event_name: null }, 'missing_event', 'event_name'],
  ])('rejects %s', (_name, overrides, reason, field) => {
    expect(stage(overrides)).toMatchObject({ type: 'rejected', reason, field });
  });
});
