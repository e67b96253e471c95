import { describe, expect, it } from 'vitest';
import { ChunkDispatcher } from '../../src/delivery/chunk-dispatcher.js';
import { chunkPersons, personHash, type ChunkPersons } from '../../src/delivery/chunk-persons.js';
import { eventJson } from '../../src/delivery/event-encoding.js';

function chunkOf(events: Array<{ event?: string; distinctId: string; properties?: Record<string, unknown> }>): { json: Buffer; ends: number[] } {
  const parts = events.map((e, i) =>
    Buffer.from(
      eventJson({
        seq: i,
        uuid: '01940000-0000-7000-8000-000000000000',
        kind: 0,
        event: e.event ?? 'viewed',
        distinctId: e.distinctId,
        timestampMs: 0,
        propertiesJson: JSON.stringify({ $geoip_disable: true, ...e.properties }),
      }),
    ),
  );
  const ends: number[] = [];
  let at = 0;
  for (const part of parts) ends.push((at += part.length + (ends.length === 0 ? 0 : 1)));
  return { json: Buffer.from(parts.map((p) => p.toString()).join(',')), ends };
}

interface Named {
  all: string[];
  changed: string[];
}
const hashed = (p: Named): ChunkPersons => ({ all: Uint32Array.from(p.all.map(personHash)), changed: Uint32Array.from(p.changed.map(personHash)) });
const sorted = (p: ChunkPersons): ChunkPersons => ({ all: p.all.slice().sort(), changed: p.changed.slice().sort() });

describe('chunkPersons', () => {
  const cases: Array<[string, Parameters<typeof chunkOf>[0], Named]> = [
    ['events that only read their person', [{ distinctId: 'a' }, { distinctId: 'b', properties: { set: { x: 1 }, $setting: 1 } }], { all: ['a', 'b'], changed: [] }],
    // Only costs a wait that was not needed.
    ['a value spelling a key counts as a change', [{ distinctId: 'a', properties: { plan: '$set' } }], { all: ['a'], changed: ['a'] }],
    [
      '$set, $set_once, $unset change it',
      [{ distinctId: 'a', properties: { $set: { x: 1 } } }, { distinctId: 'b', properties: { $set_once: { x: 1 } } }, { distinctId: 'c', properties: { $unset: ['x'] } }, { distinctId: 'd' }],
      { all: ['a', 'b', 'c', 'd'], changed: ['a', 'b', 'c'] },
    ],
    ['an event PostHog locates changes it (GeoIP)', [{ distinctId: 'a', properties: { $ip: '203.0.113.7', $geoip_disable: undefined } }, { distinctId: 'b' }], { all: ['a', 'b'], changed: ['a'] }],
    ['a merge changes both ids', [{ event: '$identify', distinctId: 'u', properties: { $anon_distinct_id: 'anon' } }], { all: ['anon', 'u'], changed: ['anon', 'u'] }],
    ['escaped ids', [{ distinctId: 'say "hi"\\', properties: { $set: { x: 1 } } }, { distinctId: 'é' }], { all: ['say "hi"\\', 'é'], changed: ['say "hi"\\'] }],
    ['an event named like a key is not a change', [{ event: '"$set"', distinctId: 'a' }], { all: ['a'], changed: [] }],
  ];
  it.each(cases)('%s', (_name, events, expected) => {
    const { json, ends } = chunkOf(events);
    expect(sorted(chunkPersons(json, ends, (id) => id))).toEqual(sorted(hashed(expected)));
  });

  it('names linked ids by their person', () => {
    const { json, ends } = chunkOf([{ distinctId: 'anon', properties: { $set: { x: 1 } } }, { distinctId: 'u' }]);
    const personOf = (id: number): number => (id === personHash('anon') ? personHash('u') : id);
    expect(sorted(chunkPersons(json, ends, personOf))).toEqual(hashed({ all: ['u'], changed: ['u'] }));
  });
});

describe('ChunkDispatcher', () => {
  it('starts a chunk sharing a changed person only once the earlier one settled; others go side by side', async () => {
    const dispatcher = new ChunkDispatcher(4);
    const log: string[] = [];
    const gates = new Map<string, () => void>();
    const task = (name: string) => () =>
      new Promise<void>((resolve) => {
        log.push(`start ${name}`);
        gates.set(name, () => {
          log.push(`end ${name}`);
          resolve();
        });
      });
    await dispatcher.submit(0, task('a1'), hashed({ all: ['a'], changed: ['a'] }));
    await dispatcher.submit(0, task('b1'), hashed({ all: ['b'], changed: [] }));
    await dispatcher.submit(0, task('b2'), hashed({ all: ['b'], changed: [] }));
    const a2 = dispatcher.submit(0, task('a2'), hashed({ all: ['a'], changed: [] }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['start a1', 'start b1', 'start b2']);
    gates.get('a1')!();
    await a2;
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['start a1', 'start b1', 'start b2', 'end a1', 'start a2']);
    for (const name of ['b1', 'b2', 'a2']) gates.get(name)!();
    await dispatcher.drain();
    expect(dispatcher.held).toBe(1);
  });
});
