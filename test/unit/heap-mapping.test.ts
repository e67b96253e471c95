/** Heap Connect rows as candidates, table by table (src/sources/vendors/heap.ts, heap-session.ts). */
import { describe, expect, it } from 'vitest';
import { EventKind } from '../../src/events/staged-event.js';
import { heapEvent, heapFilePlace, heapMapper, heapMigration, heapUser } from '../../src/sources/vendors/heap.js';
import { heapSessionId } from '../../src/sources/vendors/heap-session.js';

const T0 = '2024-03-01T10:00:00.000Z';

describe('heapFilePlace', () => {
  it.each([
    ['/data/heap/sync_12/pageviews/part-00000-ab-c000.avro', { dumpId: 12, table: 'pageviews' }],
    ['sync_3/users/part-00001-x-c000.avro', { dumpId: 3, table: 'users' }],
    ['C:\\heap\\sync_4\\user_migrations\\part-00000-y-c000.avro', { dumpId: 4, table: 'user_migrations' }],
    ['/data/pageviews/part-00000.avro', undefined],
    ['/data/sync_x/pageviews/part-00000.avro', undefined],
  ])('%s', (path, place) => {
    expect(heapFilePlace(path)).toEqual(place);
  });

  it('refuses a file outside the layout, naming it', () => {
    expect(() => heapMapper({ displayName: '/data/events.avro' })).toThrow('/data/events.avro: not a Heap Connect data file');
  });
});

describe('event tables', () => {
  const row = { event_id: 101, user_id: 4001, session_id: 7, time: T0, session_time: '2024-03-01T09:55:00Z', domain: 'shop.example.com', path: '/p', referrer: null, title: 'Home' };

  it.each([
    ['every column but user_id and time is a property; page and session get PostHog names', row, { event: 'pageviews', distinctId: '4001', timestamp: T0 }],
    ['a big user id keeps every digit', { ...row, user_id: 9007199254740993n }, { distinctId: '9007199254740993' }],
    ['text times without a zone are UTC', { ...row, time: '2024-03-01 10:00:00.250' }, { timestamp: '2024-03-01T10:00:00.250Z' }],
    ['epoch microseconds', { ...row, time: 1709287200000000 }, { timestamp: T0 }],
  ])('%s', (_name, input, expected) => {
    const candidate = heapEvent('pageviews', input, new Map());
    expect(candidate).toMatchObject(expected);
  });

  it('keeps the columns and adds $host, $pathname and $session_id; nulls are left out', () => {
    const candidate = heapEvent('pageviews', row, new Map());
    if ('reason' in candidate) throw new Error(candidate.message);
    const { $session_id: session, ...rest } = candidate.properties;
    expect(rest).toEqual({ event_id: 101, session_id: 7, session_time: '2024-03-01T09:55:00Z', domain: 'shop.example.com', path: '/p', title: 'Home', $host: 'shop.example.com', $pathname: '/p' });
    expect(session).toBe(heapSessionId(4001, 7, '2024-03-01T09:55:00Z'));
    expect(candidate.identity).toBe('heap\npageviews\n101');
  });

  it('copies the autocaptured columns PostHog has names for, never over a column of that name', () => {
    const candidate = heapEvent(
      'clicks',
      { ...row, browser: 'Firefox', platform: 'Mac OS X', device_type: 'Desktop', country: 'France', region: 'Île-de-France', city: 'Paris', $os: 'mine' },
      new Map(),
    );
    expect(candidate).toMatchObject({
      properties: {
        browser: 'Firefox',
        $browser: 'Firefox',
        $os: 'mine',
        platform: 'Mac OS X',
        $device_type: 'Desktop',
        $geoip_country_name: 'France',
        $geoip_subdivision_1_name: 'Île-de-France',
        $geoip_city_name: 'Paris',
      },
    });
  });

  it.each([
    ['no event_id', { ...row, event_id: null }, 'event_id', 'bad_value'],
    ['no time', { ...row, time: null }, 'time', 'missing_timestamp'],
    ['a time not understood', { ...row, time: 'yesterday' }, 'time', 'bad_timestamp'],
  ])('rejects a row with %s', (_name, input, field, reason) => {
    expect(heapEvent('pageviews', input, new Map())).toMatchObject({ field, reason });
  });
});

describe('heapSessionId', () => {
  it('is a UUIDv7 whose time is the session start, the same for every event of the session', () => {
    const id = heapSessionId(4001, 7, '2024-03-01T09:55:00Z')!;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(Date.parse('2024-03-01T09:55:00Z'));
    expect(heapSessionId('4001', '7', 1709286900000000)).toBe(id);
    expect(heapSessionId(4002, 7, '2024-03-01T09:55:00Z')).not.toBe(id);
  });

  it.each([
    ['no user', null, 7, T0],
    ['no session', 4001, null, T0],
    ['no start', 4001, 7, null],
    ['a start not understood', 4001, 7, 'soon'],
  ])('gives none with %s', (_name, user, session, start) => {
    expect(heapSessionId(user, session, start)).toBeUndefined();
  });
});

describe('users', () => {
  const user = { user_id: 4001, identity: 'alice@example.com', joindate: '2024-01-01T00:00:00Z', last_modified: T0, email: 'alice@example.com', plan: null };

  it.each([
    [
      'an identified user: sent by the identity, linking the user id, at the join date',
      user,
      {
        distinctId: 'alice@example.com',
        timestamp: '2024-01-01T00:00:00.000Z',
        properties: { $set: { joindate: '2024-01-01T00:00:00Z', last_modified: T0, email: 'alice@example.com' }, $anon_distinct_id: '4001' },
      },
    ],
    [
      'an anonymous user: sent by the user id, no link',
      { ...user, identity: null },
      { distinctId: '4001', properties: { $set: { joindate: '2024-01-01T00:00:00Z', last_modified: T0, email: 'alice@example.com' } } },
    ],
    ['no join date: the last change', { ...user, joindate: null }, { timestamp: T0 }],
  ])('%s', (_name, input, expected) => {
    const candidate = heapUser(input, undefined);
    expect(candidate).toMatchObject({ event: '$identify', kind: EventKind.person, ...expected });
    if (!('reason' in candidate) && input.identity === null) expect(candidate.properties).not.toHaveProperty('$anon_distinct_id');
  });

  it('takes the default time when the row has none, and rejects a row without user_id', () => {
    expect(heapUser({ user_id: 5 }, Date.parse(T0))).toMatchObject({ distinctId: '5', timestamp: T0, properties: { $set: {} } });
    expect(heapUser({ identity: 'x' }, undefined)).toMatchObject({ reason: 'missing_distinct_id', field: 'user_id' });
  });
});

describe('user_migrations', () => {
  it('links from_user_id into to_user_id at the migration time', () => {
    expect(heapMigration({ from_user_id: 4002, to_user_id: 4001, time: T0 }, undefined)).toMatchObject({
      event: '$identify',
      kind: EventKind.person,
      distinctId: '4001',
      timestamp: T0,
      properties: { $anon_distinct_id: '4002' },
      identity: 'heap\nuser_migrations\n4002\n4001',
    });
  });

  it.each([
    [{ to_user_id: 1, time: T0 }, 'from_user_id'],
    [{ from_user_id: 1, time: T0 }, 'to_user_id'],
  ])('rejects a row without %s', (row, field) => {
    expect(heapMigration(row, undefined)).toMatchObject({ reason: 'missing_distinct_id', field });
  });
});
