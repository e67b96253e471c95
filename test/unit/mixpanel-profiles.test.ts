/** Mixpanel profiles as person and group updates: the reserved names, `$last_seen` as a time, profiles that are not objects. */
import { describe, expect, it } from 'vitest';
import { lastSeenIso, profileGroupRecord, profileProperties, profileUserRecord } from '../../src/sources/vendors/mixpanel-profiles.js';

describe('lastSeenIso', () => {
  it.each([
    ['2024-03-05T10:20:30', '2024-03-05T10:20:30.000Z'],
    ['2024-03-05 10:20:30', '2024-03-05T10:20:30.000Z'],
    ['2024-03-05T10:20:30.5Z', '2024-03-05T10:20:30.500Z'],
    ['2024-03-05T10:20:30+02:00', '2024-03-05T08:20:30.000Z'],
    [1709634030, '2024-03-05T10:20:30.000Z'],
    [1709634030000, '2024-03-05T10:20:30.000Z'],
    ['yesterday', undefined],
    [null, undefined],
    [undefined, undefined],
    [-5, undefined],
  ])('%j -> %j', (value, expected) => {
    expect(lastSeenIso(value)).toBe(expected);
  });
});

describe('profile properties', () => {
  it.each([
    [
      { $email: 'a@x', $name: 'A', plan: 'pro' },
      { email: 'a@x', name: 'A', plan: 'pro' },
    ],
    [
      { $first_name: 'F', $last_name: 'L', $phone: '1', $avatar: 'u', $created: 'c', $last_seen: 's' },
      { first_name: 'F', last_name: 'L', phone: '1', avatar: 'u', created: 'c', last_seen: 's' },
    ],
    [
      { $email: 'mp@x', email: 'own@x' },
      { $email: 'mp@x', email: 'own@x' },
    ],
    [
      { $city: 'Paris', $os: 'Mac', nested: { a: [1] } },
      { $city: 'Paris', $os: 'Mac', nested: { a: [1] } },
    ],
  ])('%j', (properties, expected) => {
    expect(profileProperties(properties)).toEqual(expected);
  });

  it('keeps a property named __proto__ as a property', () => {
    const out = profileProperties(JSON.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
  });
});

describe('profile records', () => {
  it('a user profile is an update of its distinct id at $last_seen', () => {
    expect(profileUserRecord({ $distinct_id: 'u1', $properties: { $name: 'U', $last_seen: '2024-01-02T03:04:05' } })).toEqual({
      $migrate_distinct_id: 'u1',
      $migrate_timestamp: '2024-01-02T03:04:05.000Z',
      $set: { name: 'U', last_seen: '2024-01-02T03:04:05' },
    });
  });

  it('a record that is not a profile gives no distinct id (rejected when staged)', () => {
    expect(profileUserRecord('text')).toEqual({ $migrate_distinct_id: null, $set: {} });
    expect(profileUserRecord({ $distinct_id: 'u2', $properties: 'nope' })).toEqual({ $migrate_distinct_id: 'u2', $set: {} });
  });

  it('a group profile keys the group by its $distinct_id', () => {
    expect(profileGroupRecord({ $distinct_id: 'acme', $properties: { $name: 'Acme', seats: 3 } })).toEqual({ name: 'Acme', seats: 3, $migrate_group_key: 'acme' });
  });
});
