/** Persons and groups on events: snapshots taken as each event is ingested, in ingestion order. */
import { describe, expect, it } from 'vitest';
import { useIngestion } from '../helpers/ingestion.js';

const off = { $geoip_disable: true };

describe('person snapshots on events (persons-on-events)', () => {
  const ingestion = useIngestion();

  it.each([
    [
      '$set: the last processed wins, whatever the timestamps',
      [
        { event: 'a', timestamp: '2024-05-02T00:00:00Z', properties: { ...off, $set: { plan: 'pro' } } },
        { event: 'b', timestamp: '2024-05-01T00:00:00Z', properties: { ...off, $set: { plan: 'free' } } },
      ],
      [{ plan: 'pro' }, { plan: 'free' }],
      { plan: 'free' },
    ],
    [
      '$set_once: only keys the person lacks',
      [
        { event: 'a', properties: { ...off, $set_once: { first: 'x' } } },
        { event: 'b', properties: { ...off, $set_once: { first: 'y', other: 1 } } },
      ],
      [{ first: 'x' }, { first: 'x', other: 1 }],
      { first: 'x', other: 1 },
    ],
    [
      '$set_once with null locks the key',
      [
        { event: 'a', properties: { ...off, $set_once: { first: null } } },
        { event: 'b', properties: { ...off, $set_once: { first: 'y' } } },
      ],
      [{ first: null }, { first: null }],
      { first: null },
    ],
    [
      'a top-level $set overrides properties.$set',
      [{ event: 'a', $set: { plan: 'top' }, properties: { ...off, $set: { plan: 'inner', seats: 2 } } }],
      [{ plan: 'top', seats: 2 }],
      { plan: 'top', seats: 2 },
    ],
    [
      '$unset removes',
      [
        { event: 'a', properties: { ...off, $set: { a: 1, b: 2 } } },
        { event: 'b', properties: { ...off, $unset: ['a'] } },
      ],
      [{ a: 1, b: 2 }, { b: 2 }],
      { b: 2 },
    ],
    ['an event without updates still gets its person', [{ event: 'a', properties: off }], [{}], {}],
  ])('%s', (_name, events, snapshots, final) => {
    const sandbox = ingestion();
    sandbox.send(...events);
    const stored = sandbox.events();
    expect(stored.map((e) => e.personProperties)).toEqual(snapshots);
    expect(new Set(stored.map((e) => e.personId)).size).toBe(1);
    expect(sandbox.person('u')!.properties).toEqual(final);
  });

  it('an event sent with $process_person_profile: false has no person', () => {
    const sandbox = ingestion();
    sandbox.send({ event: 'a', properties: { ...off, $process_person_profile: false, $set: { x: 1 } } });
    expect(sandbox.events()[0]).toMatchObject({ personId: null, personProperties: {} });
    expect(sandbox.person('u')).toBeUndefined();
  });

  it("keeps each event's snapshot when the person changes later", () => {
    const sandbox = ingestion();
    sandbox.send({ event: 'a', properties: { ...off, $set: { plan: 'free' } } });
    sandbox.send({ event: 'b', properties: { ...off, $set: { plan: 'pro' } } });
    expect(sandbox.events().map((e) => e.personProperties.plan)).toEqual(['free', 'pro']);
  });
});

describe('group snapshots on events', () => {
  const ingestion = useIngestion();
  const identify = (key: string, set: Record<string, unknown>) => ({
    event: '$groupidentify',
    distinct_id: `$company_${key}`,
    properties: { ...off, $group_type: 'company', $group_key: key, $group_set: set },
  });
  const usage = (key: string) => ({ event: 'used', properties: { ...off, $groups: { company: key } } });

  it('a group exists only after $groupidentify; events keep the group as it was', () => {
    const sandbox = ingestion();
    sandbox.send(usage('acme'), identify('acme', { plan: 'free' }), usage('acme'), identify('acme', { plan: 'pro', seats: 3 }), usage('acme'));
    const used = sandbox.events().filter((e) => e.event === 'used');
    expect(used.map((e) => e.groupProperties[0])).toEqual([{}, { plan: 'free' }, { plan: 'pro', seats: 3 }]);
    expect(used.every((e) => e.properties.$group_0 === 'acme' && e.groupProperties.slice(1).every((g) => g === null))).toBe(true);
  });

  it('files each group type under its index, at most five types', () => {
    const sandbox = ingestion();
    const groups = { company: 'c', team: 't', a: '1', b: '2', c: '3', f: 'past five' };
    sandbox.send({ event: 'e', properties: { ...off, $groups: groups } });
    const [stored] = sandbox.events();
    expect(stored!.groupProperties).toEqual([{}, {}, {}, {}, {}]);
    expect(stored!.properties).toMatchObject({ $group_0: 'c', $group_1: 't', $group_2: '1', $group_3: '2', $group_4: '3' });
    expect(stored!.properties).not.toHaveProperty('$group_5');
  });
});
