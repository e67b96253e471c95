import { describe, expect, it } from 'vitest';
import { groupToCandidate } from '../../src/sources/people/group-record.js';
import { userToCandidate } from '../../src/sources/people/user-record.js';
import { buildEvent } from '../../src/events/build-event.js';
import { buildNameMap } from '../../src/events/name-map.js';

const options = { displayName: 'f', defaultTimestampMs: Date.parse('2026-01-01T00:00:00Z') };

describe('users file rows', () => {
  it('puts fields in $set, named ones in $set_once, and links the anonymous id', () => {
    expect(userToCandidate({ distinct_id: 'u1', email: 'a@x', first_seen: '2025-01-01', anon_distinct_id: 'anon-1' }, { ...options, setOnce: ['first_seen'] })).toMatchObject({
      event: '$identify',
      distinctId: 'u1',
      timestamp: options.defaultTimestampMs,
      properties: { $set: { email: 'a@x' }, $set_once: { first_seen: '2025-01-01' }, $anon_distinct_id: 'anon-1' },
    });
  });

  it('keeps a row timestamp and explicit $set objects', () => {
    const candidate = userToCandidate({ distinct_id: 'u1', timestamp: '2025-05-01T00:00:00Z', $set: { a: 1 }, b: 2 }, options);
    expect(candidate).toMatchObject({ timestamp: '2025-05-01T00:00:00Z', properties: { $set: { a: 1, b: 2 } } });
  });

  it.each<[Record<string, unknown>, string]>([
    [{ distinct_id: 'u1', $set: [1] }, 'bad_properties'],
    [{ distinct_id: 'u1', $set: { a: 1 }, a: 2 }, 'duplicate_property'],
  ])('%j is a %s problem', (record, reason) => {
    expect(userToCandidate(record, options)).toMatchObject({ reason });
  });

  it('a user property named "reason" is just a property', () => {
    expect(userToCandidate({ distinct_id: 'u', $set: { reason: 'x', field: 'y', message: 'z' } }, options)).toMatchObject({ event: '$identify' });
  });
});

describe('groups file rows', () => {
  const group = { ...options, groupType: 'company' };

  it('makes a $groupidentify with type, key, $group_set and the conventional distinct_id', () => {
    expect(groupToCandidate({ group_key: 'acme', name: 'Acme', employees: 10 }, group)).toMatchObject({
      event: '$groupidentify',
      distinctId: '$company_acme',
      properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', employees: 10 } },
    });
  });

  it('reads the key from another column and stringifies numbers', () => {
    expect(groupToCandidate({ id: 42, name: 'N' }, { ...group, keyColumn: 'id' })).toMatchObject({ properties: { $group_key: '42', $group_set: { name: 'N' } } });
  });

  it.each<[Record<string, unknown>, string]>([
    [{ name: 'x' }, 'missing_group_key'],
    [{ group_key: 'k'.repeat(401) }, 'group_key_too_long'],
    [{ group_key: { a: 1 } }, 'bad_value'],
  ])('%j is a %s problem', (record, reason) => {
    expect(groupToCandidate(record, group)).toMatchObject({ reason });
  });

  it('cuts the distinct_id of a long key to 200 characters, so the row is not rejected', () => {
    const candidate = groupToCandidate({ group_key: 'k'.repeat(390) }, group);
    const outcome = buildEvent(candidate as never, { nameMap: buildNameMap(), nowMs: Date.now(), kind: 2 });
    expect(outcome).toMatchObject({ type: 'event', event: { kind: 2 } });
    if (outcome.type === 'event') expect(outcome.event.distinctId).toHaveLength(200);
  });
});

describe('$groups from --group', () => {
  const base = { event: 'e', distinctId: 'd', timestamp: '2025-01-01T00:00:00Z', uuid: undefined, identity: '{}' };
  const rules = { nameMap: buildNameMap(), nowMs: Date.now(), groups: [{ type: 'company', property: 'company' }] };

  it.each<[Record<string, unknown>, unknown]>([
    [{ company: 'acme' }, { company: 'acme' }],
    [{ company: 7 }, { company: '7' }],
    [
      { company: 'acme', $groups: { team: 't1' } },
      { team: 't1', company: 'acme' },
    ],
    [{}, undefined],
  ])('%j -> $groups %j', (properties, groups) => {
    const outcome = buildEvent({ ...base, properties }, rules);
    expect(outcome.type).toBe('event');
    if (outcome.type === 'event') expect(JSON.parse(outcome.event.propertiesJson).$groups).toEqual(groups);
  });

  it('refuses a clash with a given $groups', () => {
    expect(buildEvent({ ...base, properties: { company: 'a', $groups: { company: 'b' } } }, rules)).toMatchObject({ problem: { reason: 'duplicate_property' } });
  });
});
