/** $identify / $create_alias merges, person overrides, and the sessions table. */
import { describe, expect, it } from 'vitest';
import { useIngestion } from '../helpers/ingestion.js';

const off = { $geoip_disable: true };
const identify = (user: string, anon: string, set: Record<string, unknown> = {}) => ({ event: '$identify', distinct_id: user, properties: { ...off, $anon_distinct_id: anon, $set: set } });

describe('merges', () => {
  const ingestion = useIngestion();

  it('an anonymous visitor and the user they become are one person, earlier events included', () => {
    const sandbox = ingestion();
    sandbox.send({ event: 'visit', distinct_id: 'anon-1', properties: { ...off, $set: { source: 'ad', plan: 'none' } } });
    sandbox.send({ event: 'login', distinct_id: 'ana', properties: { ...off, $set: { plan: 'pro' } } });
    sandbox.send(identify('ana', 'anon-1'), { event: 'after', distinct_id: 'ana', properties: off });
    const events = sandbox.events();
    expect(new Set(events.map((e) => e.currentPersonId)).size).toBe(1);
    expect(events[0]!.personId).not.toBe(events[0]!.currentPersonId);
    expect(sandbox.person('anon-1')).toMatchObject({ isIdentified: true, distinctIds: ['ana', 'anon-1'], properties: { source: 'ad', plan: 'pro' } });
    expect(sandbox.warnings()).toEqual([]);
  });

  it.each([
    ['$identify when only the anonymous person exists', [{ event: 'visit', distinct_id: 'anon-1', properties: off }, identify('ana', 'anon-1')]],
    ['$identify when neither exists', [identify('ana', 'anon-1')]],
    [
      '$create_alias with alias',
      [
        { event: 'visit', distinct_id: 'anon-1', properties: off },
        { event: '$create_alias', distinct_id: 'ana', properties: { ...off, alias: 'anon-1' } },
      ],
    ],
  ])('%s links both ids', (_name, events) => {
    const sandbox = ingestion();
    sandbox.send(...events);
    expect(sandbox.person('ana')).toMatchObject({ isIdentified: true, distinctIds: ['ana', 'anon-1'] });
    expect(new Set(sandbox.events().map((e) => e.currentPersonId)).size).toBe(1);
  });

  it('does not merge a person already identified (cannot_merge_already_identified), unless $merge_dangerously', () => {
    const sandbox = ingestion();
    sandbox.send(identify('bob', 'anon-b'), { event: 'x', distinct_id: 'ana', properties: off }, identify('ana', 'bob'));
    expect(sandbox.person('bob')!.distinctIds).toEqual(['anon-b', 'bob']);
    expect(sandbox.person('ana')!.distinctIds).toEqual(['ana']);
    expect(sandbox.warnings()).toMatchObject([{ type: 'cannot_merge_already_identified', details: { sourcePersonDistinctId: 'bob', targetPersonDistinctId: 'ana' } }]);
    sandbox.send({ event: '$merge_dangerously', distinct_id: 'ana', properties: { ...off, alias: 'bob' } });
    expect(sandbox.person('bob')!.distinctIds).toEqual(['ana', 'anon-b', 'bob']);
  });

  it.each(['anonymous', 'Guest', 'distinct_id', '"undefined"', "'email'", 'null', 'None', '0', '[object Object]', '  ', 'TRUE'])('refuses to merge on the id %j', (illegal) => {
    const sandbox = ingestion();
    sandbox.send({ event: 'visit', distinct_id: 'x-1', properties: off }, identify('x-1-user', 'x-1'), identify('ana', illegal));
    if (illegal.trim() !== '') sandbox.send({ event: 'visit', distinct_id: 'y-1', properties: off }, identify(illegal, 'y-1'));
    expect(sandbox.person('ana')!.distinctIds).toEqual(['ana']);
    if (illegal.trim() !== '') expect(sandbox.person('y-1')!.distinctIds).toEqual(['y-1']);
    expect(sandbox.warnings().map((w) => [w.type, w.details.illegalDistinctId])).toEqual(Array(illegal.trim() === '' ? 1 : 2).fill(['cannot_merge_with_illegal_distinct_id', illegal]));
  });

  it.each(['NULL', 'nan', 'Undefined0'])('merges on %j (the case-sensitive list is exact)', (legal) => {
    const sandbox = ingestion();
    sandbox.send({ event: 'visit', distinct_id: 'x-1', properties: off }, identify(legal, 'x-1'));
    expect(sandbox.person('x-1')!.distinctIds).toEqual([legal, 'x-1'].sort());
  });

  it('resolves chains of merges to the last survivor', () => {
    const sandbox = ingestion();
    sandbox.send({ event: 'a', distinct_id: 'a', properties: off }, { event: 'b', distinct_id: 'b', properties: off }, { event: 'c', distinct_id: 'c', properties: off });
    sandbox.send(identify('b', 'a'), { event: '$create_alias', distinct_id: 'c', properties: { ...off, alias: 'x' } });
    sandbox.send({ event: '$merge_dangerously', distinct_id: 'c', properties: { ...off, alias: 'b' } });
    expect(new Set(sandbox.events().map((e) => e.currentPersonId))).toEqual(new Set([sandbox.person('a')!.id]));
  });
});

describe('sessions', () => {
  const ingestion = useIngestion();
  const V7 = '01890000-0000-7abc-8def-000000000001';
  const V7_START = new Date(parseInt('018900000000', 16)).toISOString();

  it('files only UUIDv7 session ids, by the time in the id', () => {
    const sandbox = ingestion();
    sandbox.send(
      { event: 'a', distinct_id: 'late', timestamp: '2024-05-01T10:05:00Z', properties: { ...off, $session_id: V7 } },
      { event: 'b', distinct_id: 'early', timestamp: '2024-05-01T10:00:00Z', properties: { ...off, $session_id: V7.toUpperCase() } },
      { event: 'c', properties: { ...off, $session_id: '0189a000-0000-4abc-8def-000000000001' } },
      { event: 'd', properties: { ...off, $session_id: 'my-session' } },
      { event: 'e', properties: { ...off, $session_id: 42 } },
    );
    expect(sandbox.sessions()).toEqual([
      { sessionId: V7, sessionStart: V7_START, distinctId: 'early', firstTimestamp: '2024-05-01T10:00:00.000Z', lastTimestamp: '2024-05-01T10:05:00.000Z', eventCount: 2 },
    ]);
  });
});
