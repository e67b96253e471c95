/**
 * The filters and the transform applied to one row (row-steps.ts): what is skipped and why, what
 * the transform sees, and how what it returns is checked and staged.
 */
import { describe, expect, it } from 'vitest';
import { buildEvent, type CandidateEvent, type EventRules } from '../../src/events/build-event.js';
import { buildNameMap } from '../../src/events/name-map.js';
import { returnedValueProblem } from '../../src/events/returned-value.js';
import type { RowFilters } from '../../src/events/row-filters.js';
import { rowSteps, stageRow, type EventOutcome, type RowOutcome } from '../../src/events/row-steps.js';
import { EventKind } from '../../src/events/staged-event.js';
import { uuidText } from '../../src/events/stable-uuid.js';
import { createZoneConverter } from '../../src/events/time-zone.js';
import type { TransformView } from '../../src/events/transform-view.js';

const NOW = Date.parse('2026-01-10T00:00:00Z');
const rules: EventRules = {
  nameMap: buildNameMap({ events: { old_name: 'new_name', noise: null }, properties: { plan_id: 'plan' }, replaceDefaults: false }),
  nowMs: NOW,
};
const SOURCE = { file: 'events.csv', line: 7 };

function candidate(overrides: Partial<CandidateEvent> = {}): CandidateEvent {
  return { event: 'pageview', distinctId: 'u1', timestamp: '2025-12-01T10:00:00Z', uuid: undefined, properties: { plan_id: 'pro' }, identity: '{"row":1}', ...overrides };
}

function run(row: CandidateEvent, filters?: RowFilters, fn?: (e: TransformView) => unknown, withRules: EventRules = rules): RowOutcome {
  const steps = rowSteps(withRules, filters, fn === undefined ? undefined : { name: 'fix.mjs', fn });
  if (steps === undefined) throw new Error('no steps');
  return stageRow(row, withRules, steps, SOURCE);
}

function events(outcome: RowOutcome): EventOutcome[] {
  if (outcome.type !== 'events') throw new Error(`expected events, got ${JSON.stringify(outcome)}`);
  return outcome.events;
}

function shown(outcome: EventOutcome) {
  const e = outcome.event;
  return { uuid: uuidText(e.uuid), event: e.event, distinctId: e.distinctId, timestamp: new Date(e.timestampMs).toISOString(), properties: JSON.parse(e.propertiesJson) };
}

const day = (iso: string): number => Date.parse(iso);

describe('filters', () => {
  it.each<[string, Partial<CandidateEvent>, RowFilters, string | undefined]>([
    ['--only-events keeps a source name', {}, { onlyEvents: ['pageview'] }, undefined],
    ['--only-events keeps a mapped name', {}, { onlyEvents: ['$pageview'] }, undefined],
    ['--only-events skips another', { event: 'signed_up' }, { onlyEvents: ['$pageview'] }, '--only-events'],
    ['--skip-events by source name', { event: 'old_name' }, { skipEvents: ['old_name'] }, '--skip-events'],
    ['--skip-events by mapped name', { event: 'old_name' }, { skipEvents: ['new_name'] }, '--skip-events'],
    ['--skip-events keeps others', {}, { skipEvents: ['old_name'] }, undefined],
    ['--since keeps its own instant', {}, { sinceMs: day('2025-12-01T10:00:00Z') }, undefined],
    ['--since skips the instant before', {}, { sinceMs: day('2025-12-01T10:00:00.001Z') }, '--since'],
    ['--until skips its own instant (half-open)', {}, { untilMs: day('2025-12-01T10:00:00Z') }, '--until'],
    ['--until keeps the instant before', {}, { untilMs: day('2025-12-01T10:00:00.001Z') }, undefined],
    ['a map to null wins over the filters', { event: 'noise' }, { onlyEvents: ['noise'] }, 'map'],
    ['a row without a name is left to the rules', { event: '' }, { onlyEvents: ['$pageview'] }, 'rejected'],
    ['a row whose time cannot be read is left to the rules', { timestamp: 'soon' }, { sinceMs: 0 }, 'rejected'],
    ['a person update is never filtered', { event: '$identify', kind: EventKind.person }, { onlyEvents: ['$pageview'], sinceMs: day('2030-01-01') }, undefined],
  ])('%s', (_name, overrides, filters, expected) => {
    const outcome = run(candidate(overrides), filters);
    if (expected === undefined) expect(outcome.type).toBe('events');
    else if (expected === 'rejected') expect(outcome.type).toBe('rejected');
    else expect(outcome).toEqual({ type: 'skipped', reason: expected });
  });

  it('reads a time without a zone in --timezone before comparing', () => {
    const zoned = { ...rules, zone: createZoneConverter('Asia/Tokyo') };
    // 09:00 in Tokyo is midnight UTC.
    expect(run(candidate({ timestamp: '2025-12-01 08:59:59' }), { sinceMs: day('2025-12-01') }, undefined, zoned)).toEqual({ type: 'skipped', reason: '--since' });
    expect(run(candidate({ timestamp: '2025-12-01 09:00:00' }), { sinceMs: day('2025-12-01') }, undefined, zoned).type).toBe('events');
  });
});

describe('what the transform sees', () => {
  it('the row after the mapping, its time as ISO, its source and no uuid when the row has none', () => {
    let seen: TransformView | undefined;
    run(candidate({ distinctId: 42, timestamp: 1764583200 }), undefined, (e) => {
      seen = structuredClone(e);
      return e;
    });
    expect(seen).toEqual({
      event: '$pageview',
      distinct_id: '42',
      timestamp: '2025-12-01T10:00:00.000Z',
      properties: { plan: 'pro' },
      uuid: null,
      source: { file: 'events.csv', line: 7 },
    });
  });

  it("a value it cannot read as it is (the rules say why if it stays so), and the row's uuid normalised", () => {
    let seen: TransformView | undefined;
    run(candidate({ timestamp: '2025-12-01 10:00', uuid: '{0190A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B}', properties: { big: 12345678901234567890n } }), undefined, (e) => {
      seen = e;
      return null;
    });
    expect(seen).toMatchObject({ timestamp: '2025-12-01 10:00', uuid: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', properties: { big: 12345678901234567890n } });
  });
});

describe('what the transform returns', () => {
  it('unchanged: staged exactly as without a transform (uuid, time, properties)', () => {
    const row = candidate({ timestamp: '2025-12-01 10:00', properties: { plan_id: 'pro', n: 1 } });
    const zoned = { ...rules, zone: createZoneConverter('Europe/Paris') };
    const plain = buildEvent(row, zoned);
    const [staged] = events(run(candidate({ timestamp: '2025-12-01 10:00', properties: { plan_id: 'pro', n: 1 } }), undefined, (e) => e, zoned));
    expect(staged).toEqual(plain);
    expect(staged!.zoneKey).toBeDefined();
  });

  it('changed: the changes are staged with the row uuid, and the mapping is not applied again', () => {
    const plain = buildEvent(candidate(), rules) as EventOutcome;
    const [staged] = events(run(candidate(), undefined, (e) => ({ ...e, event: 'old_name', properties: { ...e.properties, plan_id: 'x', added: true } })));
    expect(shown(staged!)).toEqual({ ...shown(plain), event: 'old_name', properties: { plan: 'pro', plan_id: 'x', added: true } });
  });

  it('a new time moves the derived uuid with it; a Date is read as its instant', () => {
    const [staged] = events(run(candidate(), undefined, (e) => ({ ...e, timestamp: new Date('2025-11-30T00:00:00Z') })));
    expect(shown(staged!).timestamp).toBe('2025-11-30T00:00:00.000Z');
    expect(shown(staged!).uuid.startsWith('019a')).toBe(true);
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['an empty array', []],
  ])('%s drops the row, counted under the transform', (_name, value) => {
    expect(run(candidate(), undefined, () => value)).toEqual({ type: 'skipped', reason: 'transform fix.mjs' });
  });

  it('an array makes several events: the first keeps the row uuid, each other its own, the same on every run', () => {
    const row = candidate({ uuid: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' });
    const fanOut = (e: TransformView) => [e, { ...e, event: 'second' }, { event: 'third', distinct_id: 'u1', timestamp: e.timestamp }];
    const first = events(run(row, undefined, fanOut)).map(shown);
    const again = events(run(candidate({ uuid: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' }), undefined, fanOut)).map(shown);
    expect(first.map((e) => e.event)).toEqual(['$pageview', 'second', 'third']);
    expect(first[0]!.uuid).toBe('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
    expect(new Set(first.map((e) => e.uuid)).size).toBe(3);
    expect(again).toEqual(first);
    expect(first[2]!.properties).toEqual({});
  });

  it('a uuid it sets is used', () => {
    const [staged] = events(run(candidate(), undefined, (e) => ({ ...e, uuid: '0190A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B' })));
    expect(shown(staged!).uuid).toBe('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
  });

  it('attaches groups (--group) from what it returns', () => {
    const grouped = { ...rules, groups: [{ type: 'company', property: 'company_id' }] };
    const [staged] = events(run(candidate(), undefined, (e) => ({ ...e, properties: { company_id: 'acme' } }), grouped));
    expect(shown(staged!).properties).toEqual({ company_id: 'acme', $groups: { company: 'acme' } });
  });

  it('a throw rejects the row with the message', () => {
    expect(
      run(candidate(), undefined, () => {
        throw new TypeError('no plan');
      }),
    ).toEqual({ type: 'rejected', problem: { reason: 'transform_error', field: '', message: 'transform fix.mjs threw: TypeError: no plan' } });
  });

  it.each<[string, (e: TransformView) => unknown, string, string]>([
    ['undefined', () => undefined, '', 'returned undefined: return the event'],
    ['a promise', (e) => Promise.resolve(e), '', 'returned a Promise'],
    ['a string', () => 'x', '', 'returned a string, not an event object'],
    ['an unknown field', (e) => ({ ...e, $set: {} }), '', 'an unknown field "$set"'],
    ['properties not an object', (e) => ({ ...e, properties: [1] }), '', 'properties as an array, not an object'],
    ['a Date in properties', (e) => ({ ...e, properties: { at: new Date(0) } }), '', 'properties.at is a Date, not a plain object (return date.toISOString())'],
    ['NaN', (e) => ({ ...e, properties: { n: Number.NaN } }), '', 'properties.n is NaN'],
    ['a lone surrogate', (e) => ({ ...e, distinct_id: 'a\ud800' }), '', 'distinct_id holds a lone UTF-16 surrogate'],
    ['a bad element of an array', (e) => [e, null], '', 'event 2 of 2: null, not an event object'],
    ['too many events', (e) => new Array(1001).fill(e), '', '1001 events for one row; at most 1000'],
    ['an event the rules reject', (e) => ({ ...e, distinct_id: '' }), 'distinct_id', 'returned an event the rules reject: distinct_id is missing or empty (missing_distinct_id)'],
    ['one of several the rules reject', (e) => [e, { ...e, timestamp: 'soon' }], 'timestamp', 'returned event 2 of 2, which the rules reject: "soon" is not ISO 8601 or epoch time (bad_timestamp)'],
  ])('%s is a transform_invalid reject', (_name, fn, field, message) => {
    const outcome = run(candidate(), undefined, fn);
    expect(outcome).toMatchObject({ type: 'rejected', problem: { reason: 'transform_invalid', field } });
    expect((outcome as { problem: { message: string } }).problem.message).toContain(message);
  });

  it('the filters run before the transform, which never sees a row they leave out', () => {
    let calls = 0;
    const outcome = run(candidate(), { skipEvents: ['pageview'] }, (e) => {
      calls++;
      return e;
    });
    expect(outcome).toEqual({ type: 'skipped', reason: '--skip-events' });
    expect(calls).toBe(0);
  });
});

describe('values a transform may return', () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  it.each<[string, unknown, string | undefined]>([
    ['JSON values', { a: [1, 'x', null, true, { b: 2.5 }], n: 10n }, undefined],
    ['an undefined member (left out, as JSON does)', { a: undefined }, undefined],
    ['an object without a prototype', Object.assign(Object.create(null) as object, { a: 1 }), undefined],
    ['undefined in an array', [1, undefined], 'p[1] is undefined'],
    ['Infinity', Infinity, 'p is Infinity'],
    ['a function', () => 1, 'p is a function'],
    ['a Map', new Map(), 'p is a Map, not a plain object'],
    ['a BigInt beyond 64 bits', 2n ** 64n, 'p is an integer beyond 64 bits'],
    ['a cycle', cyclic, 'nests more than 1000 levels deep (or refers to itself)'],
  ])('%s', (_name, value, problem) => {
    const found = returnedValueProblem(value, 'p');
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });
});
