import { describe, expect, it } from 'vitest';
import { buildEvent, type CandidateEvent } from '../../src/events/build-event.js';
import { buildNameMap } from '../../src/events/name-map.js';
import { EventKind } from '../../src/events/staged-event.js';
import { createZoneConverter } from '../../src/events/time-zone.js';
import { mapSegment } from '../../src/sources/vendors/segment.js';
import { mapAndBuild, NOW, stagedEvent, type Staged } from '../helpers/map-and-build.js';

type Record_ = Record<string, unknown>;

const webContext: Record_ = {
  ip: '203.0.113.7',
  userAgent: 'Mozilla/5.0 (Macintosh) Safari/605.1.15',
  library: { name: 'analytics.js', version: 'next-1.70.0' },
  locale: 'de-DE',
  timezone: 'Europe/Berlin',
  page: { path: '/pricing', referrer: 'https://www.google.com/search?q=x', search: '?utm_source=news', title: 'Preise', url: 'https://shop.example.com/pricing?utm_source=news' },
  campaign: { name: 'autumn', source: 'news', medium: 'email', term: 'kaffee', content: 'banner', id: 'c-1' },
  userAgentData: { mobile: false, platform: 'macOS' },
};

const appContext: Record_ = {
  app: { name: 'Musikbox', version: '3.4.1', build: '512', namespace: 'com.example.musikbox' },
  device: { id: 'D-1', manufacturer: 'Apple', model: 'iPhone15,2', name: 'iPhone', type: 'ios', advertisingId: 'ad-1' },
  os: { name: 'iOS', version: '17.5.1' },
  screen: { width: 393, height: 852, density: 3 },
  network: { wifi: true, cellular: false, carrier: 'NTT DOCOMO', bluetooth: false },
  locale: 'ja-JP',
  library: { name: 'analytics-ios', version: '4.1.8' },
  location: { city: 'Tokyo', latitude: 35.6 },
};

function call(overrides: Record_ = {}): Record_ {
  return {
    type: 'track',
    event: 'Order Completed',
    userId: 'ana@example.com',
    anonymousId: 'anon-1',
    messageId: 'ajs-next-1',
    timestamp: '2025-09-01T09:15:02.123Z',
    originalTimestamp: '2025-09-01T09:15:03.500Z',
    sentAt: '2025-09-01T09:15:04.000Z',
    receivedAt: '2025-09-01T09:15:02.900Z',
    properties: { revenue: 12.5 },
    context: {},
    integrations: {},
    version: 2,
    ...overrides,
  };
}

function stage(overrides: Record_ = {}, groupType?: string): Staged {
  return mapAndBuild(mapSegment(call(overrides), groupType));
}

function candidate(overrides: Record_ = {}): CandidateEvent {
  const mapped = mapSegment(call(overrides));
  if ('reason' in mapped) throw new Error(mapped.message);
  return mapped;
}

describe('Segment mapping: call types', () => {
  it('stages a track call as its event, with the user and the other id kept', () => {
    const staged = stagedEvent(stage());
    expect(staged).toMatchObject({ event: 'Order Completed', distinctId: 'ana@example.com', timestamp: '2025-09-01T09:15:02.123Z' });
    expect(staged.properties).toEqual({ revenue: 12.5, segment_message_id: 'ajs-next-1', segment_anonymous_id: 'anon-1' });
  });

  it('stages a page call as $pageview, its properties under PostHog names', () => {
    const staged = stagedEvent(
      stage({
        type: 'page',
        event: undefined,
        name: 'Pricing',
        category: 'Shop',
        properties: { url: 'https://shop.example.com/pricing', path: '/pricing', referrer: 'https://www.google.com/', title: 'Preise', search: '' },
      }),
    );
    expect(staged.event).toBe('$pageview');
    expect(staged.properties).toMatchObject({
      $current_url: 'https://shop.example.com/pricing',
      $pathname: '/pricing',
      $referrer: 'https://www.google.com/',
      title: 'Preise',
      search: '',
      name: 'Pricing',
      category: 'Shop',
      $host: 'shop.example.com',
      $referring_domain: 'www.google.com',
    });
    expect(staged.properties).not.toHaveProperty('url');
  });

  it('takes a page call without properties from context.page', () => {
    const staged = stagedEvent(stage({ type: 'page', properties: undefined, context: webContext }));
    expect(staged.properties).toMatchObject({ $current_url: 'https://shop.example.com/pricing?utm_source=news', $pathname: '/pricing', title: 'Preise', $host: 'shop.example.com' });
  });

  it('stages a screen call as $screen with $screen_name', () => {
    const staged = stagedEvent(stage({ type: 'screen', name: 'Player', properties: { from_push: true }, context: appContext }));
    expect(staged.event).toBe('$screen');
    expect(staged.properties).toMatchObject({ $screen_name: 'Player', from_push: true });
  });

  it('stages identify as a person update: traits in $set, the anonymous id linked', () => {
    const mapped = candidate({ type: 'identify', traits: { email: 'ana@example.com', plan: 'pro' }, properties: undefined });
    expect(mapped.kind).toBe(EventKind.person);
    const staged = stagedEvent(mapAndBuild(mapped));
    expect(staged).toMatchObject({ event: '$identify', distinctId: 'ana@example.com' });
    expect(staged.properties).toEqual({ $set: { email: 'ana@example.com', plan: 'pro' }, $anon_distinct_id: 'anon-1', segment_message_id: 'ajs-next-1' });
  });

  it('stages an identify with only anonymousId as properties of the anonymous id, linking nothing', () => {
    const staged = stagedEvent(stage({ type: 'identify', userId: null, traits: { newsletter: true } }));
    expect(staged).toMatchObject({ event: '$identify', distinctId: 'anon-1' });
    expect(staged.properties).not.toHaveProperty('$anon_distinct_id');
    expect(staged.properties.$set).toEqual({ newsletter: true });
  });

  it.each<[string, string | undefined, string]>([
    ['the default group type', undefined, 'company'],
    ['--segment-group-type', 'account', 'account'],
  ])('stages group as a group update with %s', (_name, groupType, expected) => {
    const mapped = mapSegment(call({ type: 'group', groupId: 'acme-gmbh', traits: { name: 'Acme GmbH', employees: 120 }, properties: undefined }), groupType);
    expect('kind' in mapped && mapped.kind).toBe(EventKind.group);
    const staged = stagedEvent(mapAndBuild(mapped));
    expect(staged).toMatchObject({ event: '$groupidentify', distinctId: `$${expected}_acme-gmbh` });
    expect(staged.properties).toMatchObject({
      $group_type: expected,
      $group_key: 'acme-gmbh',
      $group_set: { name: 'Acme GmbH', employees: 120 },
      segment_user_id: 'ana@example.com',
      segment_anonymous_id: 'anon-1',
    });
  });

  it('stages alias as $create_alias, a merge PostHog reads, with the person updates', () => {
    const mapped = candidate({ type: 'alias', previousId: 'legacy-42', anonymousId: undefined, properties: undefined });
    expect(mapped.kind).toBe(EventKind.person);
    const staged = stagedEvent(mapAndBuild(mapped));
    expect(staged).toMatchObject({ event: '$create_alias', distinctId: 'ana@example.com' });
    expect(staged.properties).toEqual({ alias: 'legacy-42', segment_message_id: 'ajs-next-1' });
  });

  it('gives track, page and screen the kind of plain events', () => {
    for (const type of ['track', 'page', 'screen']) expect(candidate({ type }).kind).toBe(EventKind.event);
    const built = buildEvent(candidate({ type: 'identify' }), { nameMap: buildNameMap(), nowMs: NOW });
    expect(built.type === 'event' && built.event.kind).toBe(EventKind.person);
  });

  it.each<[string, Record_, string]>([
    ['userId', {}, 'ana@example.com'],
    ['anonymousId when userId is null', { userId: null }, 'anon-1'],
    ['anonymousId when userId is empty', { userId: '' }, 'anon-1'],
    ['a numeric userId, as text', { userId: 1001 }, '1001'],
  ])('takes the distinct_id from %s', (_name, overrides, expected) => {
    expect(stagedEvent(stage(overrides)).distinctId).toBe(expected);
  });

  it('accepts the call type in any case', () => {
    expect(stagedEvent(stage({ type: 'Page' })).event).toBe('$pageview');
  });
});

describe('Segment mapping: context and other fields', () => {
  it('maps a web context to PostHog names and keeps the rest under segment_', () => {
    const staged = stagedEvent(stage({ context: { ...webContext, groupId: 'acme-gmbh' } }));
    expect(staged.properties).toEqual({
      revenue: 12.5,
      $ip: '203.0.113.7',
      $raw_user_agent: 'Mozilla/5.0 (Macintosh) Safari/605.1.15',
      $timezone: 'Europe/Berlin',
      $browser_language: 'de-DE',
      $current_url: 'https://shop.example.com/pricing?utm_source=news',
      $pathname: '/pricing',
      $referrer: 'https://www.google.com/search?q=x',
      title: 'Preise',
      $host: 'shop.example.com',
      $referring_domain: 'www.google.com',
      utm_campaign: 'autumn',
      utm_source: 'news',
      utm_medium: 'email',
      utm_term: 'kaffee',
      utm_content: 'banner',
      $groups: { company: 'acme-gmbh' },
      segment_library: { name: 'analytics.js', version: 'next-1.70.0' },
      segment_campaign: { id: 'c-1' },
      segment_userAgentData: { mobile: false, platform: 'macOS' },
      segment_message_id: 'ajs-next-1',
      segment_anonymous_id: 'anon-1',
    });
  });

  it('maps a mobile context to the names PostHog mobile SDKs use', () => {
    const staged = stagedEvent(stage({ context: appContext }));
    expect(staged.properties).toMatchObject({
      $app_name: 'Musikbox',
      $app_version: '3.4.1',
      $app_build: '512',
      $app_namespace: 'com.example.musikbox',
      $device_manufacturer: 'Apple',
      $device_model: 'iPhone15,2',
      $device_name: 'iPhone',
      $device_type: 'Mobile',
      $os: 'iOS',
      $os_version: '17.5.1',
      $screen_width: 393,
      $screen_height: 852,
      $network_wifi: true,
      $network_cellular: false,
      $network_carrier: 'NTT DOCOMO',
      $network_bluetooth: false,
      $locale: 'ja-JP',
      segment_device: { id: 'D-1', type: 'ios', advertisingId: 'ad-1' },
      segment_screen: { density: 3 },
      segment_location: { city: 'Tokyo', latitude: 35.6 },
      segment_library: { name: 'analytics-ios', version: '4.1.8' },
    });
    expect(staged.properties).not.toHaveProperty('$browser_language');
  });

  it('drops delivery bookkeeping and keys; keeps any other top-level field under segment_', () => {
    const staged = stagedEvent(stage({ writeKey: 'wk_secret', projectId: 'p1', _metadata: { bundled: [] }, channel: 'server', request_id: 'r-1' }));
    for (const key of ['originalTimestamp', 'sentAt', 'receivedAt', 'integrations', 'version', 'writeKey', 'projectId', '_metadata']) {
      expect(staged.properties).not.toHaveProperty(key);
      expect(staged.properties).not.toHaveProperty(`segment_${key}`);
    }
    expect(JSON.stringify(staged.properties)).not.toContain('wk_secret');
    expect(staged.properties).toMatchObject({ segment_channel: 'server', segment_request_id: 'r-1' });
  });

  it('lets an event property win over a context field of the same PostHog name', () => {
    expect(stagedEvent(stage({ properties: { $ip: '10.0.0.1', utm_source: 'mine' }, context: webContext })).properties).toMatchObject({ $ip: '10.0.0.1', utm_source: 'mine' });
  });

  it('keeps a __proto__ property as a property', () => {
    const record = JSON.parse('{"type":"track","event":"E","userId":"u","timestamp":"2025-09-01T00:00:00Z","properties":{"__proto__":{"x":1}}}') as Record_;
    const staged = stagedEvent(mapAndBuild(mapSegment(record)));
    expect(Object.hasOwn(staged.properties, '__proto__')).toBe(true);
  });
});

describe('Segment mapping: times and uuids', () => {
  it.each<[string, string, string]>([
    ['UTC', '2025-09-01T09:15:02.123Z', '2025-09-01T09:15:02.123Z'],
    ['an offset', '2025-09-01T11:15:02.123+02:00', '2025-09-01T09:15:02.123Z'],
    ['microseconds', '2025-09-01T11:15:02.123456+02:00', '2025-09-01T09:15:02.123456Z'],
  ])('reads timestamp with %s', (_name, timestamp, expected) => {
    expect(stagedEvent(stage({ timestamp })).timestamp).toBe(expected);
  });

  it('reads a time without a zone only with --timezone', () => {
    const zoneless = candidate({ timestamp: '2025-09-01 11:15:02' });
    expect(buildEvent(zoneless, { nameMap: buildNameMap(), nowMs: NOW })).toMatchObject({ type: 'rejected', problem: { reason: 'timestamp_without_zone' } });
    const zoned = buildEvent(zoneless, { nameMap: buildNameMap(), nowMs: NOW, zone: createZoneConverter('Europe/Berlin') });
    expect(zoned.type === 'event' && new Date(zoned.event.timestampMs).toISOString()).toBe('2025-09-01T09:15:02.000Z');
  });

  it('derives the uuid from messageId: a redelivered call gets the same one', () => {
    const first = stagedEvent(stage());
    const again = stagedEvent(stage({ receivedAt: '2025-09-02T00:00:00Z', sentAt: '2025-09-01T23:00:00Z', context: { ip: '203.0.113.9' } }));
    expect(again.uuid).toBe(first.uuid);
    expect(stagedEvent(stage({ messageId: 'ajs-next-2' })).uuid).not.toBe(first.uuid);
  });

  it('derives the uuid from the whole call when there is no messageId', () => {
    const a = stagedEvent(stage({ messageId: undefined }));
    expect(stagedEvent(stage({ messageId: undefined })).uuid).toBe(a.uuid);
    expect(stagedEvent(stage({ messageId: undefined, receivedAt: '2025-09-02T00:00:00Z' })).uuid).not.toBe(a.uuid);
  });
});

describe('Segment mapping: rejects', () => {
  it.each<[string, Record_, string, string]>([
    ['no type', { type: undefined }, 'missing_event', 'type'],
    ['an unknown type', { type: 'batch' }, 'bad_value', 'type'],
    ['a track call without event', { event: '' }, 'missing_event', 'event'],
    ['no timestamp', { timestamp: undefined }, 'missing_timestamp', 'timestamp'],
    ['properties not an object', { properties: 'oops' }, 'bad_properties', 'properties'],
    ['traits not an object', { type: 'identify', traits: [1] }, 'bad_properties', 'traits'],
    ['context not an object', { context: 'web' }, 'bad_properties', 'context'],
    ['neither userId nor anonymousId', { userId: null, anonymousId: null }, 'missing_distinct_id', 'userId, anonymousId'],
    ['a group call without groupId', { type: 'group' }, 'missing_group_key', 'groupId'],
    ['an alias without previousId', { type: 'alias' }, 'bad_value', 'previousId'],
    ['an impossible date', { timestamp: '2025-09-31T10:00:00Z' }, 'bad_timestamp', 'timestamp'],
  ])('rejects %s', (_name, overrides, reason, field) => {
    expect(stage(overrides)).toMatchObject({ type: 'rejected', reason, field });
  });
});
