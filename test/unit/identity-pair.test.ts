/**
 * The pair an event gives the identity links, drawn where the event is built, must be the one the
 * pass's SQL draws from the staged properties: each case is checked against that SQL, run by
 * SQLite over the same properties as JSON text.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { identityPair, PAIR_BY_SQL, pairKey, splitPairKey, type LinkFormat } from '../../src/events/identity-pair.js';
import { EventKind } from '../../src/events/staged-event.js';
import { openDatabase } from '../../src/sqlite/database.js';
import { PAIR_SQL } from '../../src/staging/identity-store.js';

const db = openDatabase(':memory:');
afterAll(() => db.close());

/** The pass's own SQL over the staged text: the pair key, or undefined. */
function sqlPair(format: LinkFormat, distinctId: string, properties: Record<string, unknown>): string | undefined {
  const { user, device } = PAIR_SQL[format];
  const row = db
    .prepare(
      `SELECT device, e.distinct_id AS user FROM (SELECT ${device} AS device, ${user} AS user, e.distinct_id FROM (SELECT jsonb(?) AS p, ? AS distinct_id) e) e
       WHERE user IS NOT NULL AND e.distinct_id = CAST(user AS TEXT) AND device IS NOT NULL`,
    )
    .get(JSON.stringify(properties), distinctId) as { device: string; user: string } | undefined;
  return row === undefined ? undefined : pairKey(row.device, row.user);
}

const cases: Array<[string, LinkFormat, string, Record<string, unknown>]> = [
  ['an identified Mixpanel event', 'mixpanel', 'u1', { $user_id: 'u1', $device_id: 'd1' }],
  ['an anonymous Mixpanel event', 'mixpanel', '$device:d1', { $device_id: 'd1' }],
  ['a user other than the distinct_id', 'mixpanel', 'u2', { $user_id: 'u1', $device_id: 'd1' }],
  ['no device', 'mixpanel', 'u1', { $user_id: 'u1' }],
  ['a null device', 'mixpanel', 'u1', { $user_id: 'u1', $device_id: null }],
  ['a null user', 'mixpanel', 'u1', { $user_id: null, $device_id: 'd1' }],
  ['numbers as ids', 'mixpanel', '42', { $user_id: 42, $device_id: 7 }],
  ['a negative number', 'mixpanel', '-3', { $user_id: -3, $device_id: 'd' }],
  ['a fractional device', 'mixpanel', 'u1', { $user_id: 'u1', $device_id: 1.5 }],
  ['a device past the safe integers', 'mixpanel', 'u1', { $user_id: 'u1', $device_id: 2 ** 60 }],
  ['a boolean device', 'mixpanel', 'u1', { $user_id: 'u1', $device_id: true }],
  ['an object as user', 'mixpanel', '{"a":1}', { $user_id: { a: 1 }, $device_id: 'd' }],
  ['an empty device', 'mixpanel', 'u1', { $user_id: 'u1', $device_id: '' }],
  ['text with a NUL', 'mixpanel', 'u\u00001', { $user_id: 'u\u00001', $device_id: 'd' }],
  ['non-ASCII ids', 'mixpanel', 'ü✓', { $user_id: 'ü✓', $device_id: '设备' }],
  ['an identified Amplitude event', 'amplitude', 'au1', { $amplitude_user_id: 'au1', $amplitude_device_id: 'ad1' }],
  ['an Amplitude event without user', 'amplitude', 'ad1', { $amplitude_device_id: 'ad1' }],
  ['an Amplitude numeric device', 'amplitude', 'au1', { $amplitude_user_id: 'au1', $amplitude_device_id: 12 }],
];

describe('identityPair', () => {
  it.each(cases)('%s: as the pass SQL draws it', (_name, format, distinctId, properties) => {
    const pair = identityPair(format, EventKind.event, distinctId, properties);
    if (pair !== PAIR_BY_SQL) expect(pair).toEqual(sqlPair(format, distinctId, properties));
  });

  it('leaves to SQL only values JS could spell otherwise', () => {
    const asked = cases.filter(([, format, id, properties]) => identityPair(format, EventKind.event, id, properties) === PAIR_BY_SQL).map(([name]) => name);
    expect(asked).toEqual(['a fractional device', 'a device past the safe integers', 'a boolean device', 'an object as user', 'text with a NUL']);
  });

  it('draws none from person updates and other rows that are not events', () => {
    expect(identityPair('mixpanel', EventKind.person, 'u1', { $user_id: 'u1', $device_id: 'd1' })).toBeUndefined();
  });

  it('splits a key back into its device and user', () => {
    expect(splitPairKey(pairKey('$device:d:1', 'u 1'))).toEqual({ device: '$device:d:1', user: 'u 1' });
  });
});
