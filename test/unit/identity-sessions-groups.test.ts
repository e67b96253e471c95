/**
 * The pure rules behind identity links, sessions and group updates: which device ids are
 * placeholders, what a device's users decide, where a group's properties change, where a
 * session starts, the uuids made for derived rows, and the content options they record.
 */
import { describe, expect, it } from 'vitest';
import { isUuidV7, nameUuidBytes, sessionUuid } from '../../src/events/derived-uuids.js';
import { firstAndLast, observe } from '../../src/events/group-observations.js';
import { isIllegalDistinctId } from '../../src/events/illegal-distinct-id.js';
import { uuidText } from '../../src/events/stable-uuid.js';
import { contentChanges, describeChange } from '../../src/stage-sources/content-options.js';
import { decideDevice, isPlaceholderDevice } from '../../src/passes/device-guards.js';
import { changePoints, groupUpdateEvent } from '../../src/passes/group-updates.js';
import { linkEvent } from '../../src/passes/identity-links.js';
import { computedSessionId, SessionWalk } from '../../src/passes/sessionize.js';
import { reviewSessionId } from '../../src/stage-sources/session-ids.js';

const timeOf = (uuid: string): number => parseInt(uuid.slice(0, 8) + uuid.slice(9, 13), 16);

describe('ids PostHog refuses to merge on', () => {
  it.each<[string, boolean]>([
    ['anonymous', true],
    ['Anonymous', true],
    ['GUEST', true],
    ['"undefined"', true],
    ["'null'", true],
    ['NaN', true],
    ['0', true],
    ['', true],
    ['   ', true],
    ['nan', false],
    ['NULL', false],
    ['00', false],
    ['ana@example.com', false],
    ['d-1', false],
  ])('%j: %s', (id, illegal) => {
    expect(isIllegalDistinctId(id)).toBe(illegal);
  });
});

describe('device guards', () => {
  it.each<[string, boolean]>([
    ['00000000-0000-0000-0000-000000000000', true],
    ['0000000000000000', true],
    ['', true],
    [' ', true],
    ['unknown', true],
    ['UNKNOWN', true],
    ['null', true],
    ['undefined', true],
    ['$device:', true],
    ['$device:00000000-0000-0000-0000-000000000000', true],
    ['$device:unknown', true],
    ['4b1393cc-b7f8-431b-8f05-acdbdc226a73', false],
    ['$device:4b1393cc', false],
    ['d1', false],
    ['10', false],
  ])('%j is a placeholder: %s', (device, placeholder) => {
    expect(isPlaceholderDevice(device)).toBe(placeholder);
  });

  it.each<[string, string, number, string]>([
    ['one user', 'd1', 1, 'linked'],
    ['several users: linked to the first', 'd1', 5, 'linked'],
    ['more users than the limit', 'd1', 6, 'kiosk'],
    ['a placeholder, whatever its users', 'unknown', 1, 'placeholder'],
  ])('%s', (_name, device, users, decision) => {
    expect(decideDevice(device, { users, first: { user: 'ana', ms: 1 } }, 5)).toBe(decision);
  });

  it('links no user PostHog refuses to merge on, and decides a device with no users left as gone', () => {
    expect(decideDevice('d1', { users: 1, first: { user: 'guest', ms: 1 } }, 5)).toBe('illegal_user');
    expect(decideDevice('d1', { users: 0 }, 5)).toBe('gone');
  });
});

describe('uuids of derived rows', () => {
  it('an identity link has a name-based uuid (version 8, 48 zero bits first) from its two ids only', () => {
    const a = linkEvent('ana', 'd1', 1000);
    expect(uuidText(a.uuid)).toMatch(/^00000000-0000-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(linkEvent('ana', 'd1', 5000).uuid).toEqual(a.uuid);
    expect(linkEvent('bo', 'd1', 1000).uuid).not.toEqual(a.uuid);
    expect(a).toMatchObject({ kind: 1, event: '$identify', distinctId: 'ana', timestampMs: 1000, propertiesJson: '{"$anon_distinct_id":"d1"}' });
    expect(nameUuidBytes('x')).toEqual(nameUuidBytes('x'));
  });

  it('a session id is a UUIDv7 filed at its start, one per person and start', () => {
    const id = sessionUuid(1756717069703, 'who');
    expect(isUuidV7(id)).toBe(true);
    expect(timeOf(id)).toBe(1756717069703);
    expect(sessionUuid(1756717069703, 'other')).not.toBe(id);
    expect(computedSessionId('a', 5000)).toBe(computedSessionId('a', 5000));
    expect(computedSessionId('a', 5000)).not.toBe(computedSessionId('b', 5000));
  });

  it.each<[unknown, boolean]>([
    ['0199047f-3587-7aca-97c4-d5093a6e9adc', true],
    ['0199047F-3587-7ACA-97C4-D5093A6E9ADC', true],
    ['4b1393cc-b7f8-431b-8f05-acdbdc226a73', false],
    ['0199047f35877aca97c4d5093a6e9adc', false],
    [1756717069703, false],
    ['abc', false],
  ])('isUuidV7(%j) is %s', (value, expected) => {
    expect(isUuidV7(value)).toBe(expected);
  });

  it('a group update names its group and properties, at the time they were seen', () => {
    const version = Buffer.alloc(16, 1);
    const event = groupUpdateEvent({ type: 'company', key: 'acme' }, version, '{"name":"Acme"}', 2000);
    expect(event).toMatchObject({ kind: 2, event: '$groupidentify', distinctId: '$company_acme', timestampMs: 2000 });
    expect(JSON.parse(event.propertiesJson)).toEqual({ $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } });
    expect(timeOf(uuidText(event.uuid))).toBe(2000);
    expect(groupUpdateEvent({ type: 'company', key: 'acme' }, version, '{"name":"Acme"}', 3000).uuid).not.toEqual(event.uuid);
  });
});

describe('where group properties change', () => {
  const v = (n: number): Buffer => Buffer.alloc(16, n);
  it.each<[string, Array<[number, number]>, Array<[number, number]>]>([
    [
      'the first time, then each change',
      [
        [1, 1],
        [2, 1],
        [3, 2],
        [4, 2],
        [5, 1],
      ],
      [
        [1, 1],
        [3, 2],
        [5, 1],
      ],
    ],
    [
      'once for a group that never changes',
      [
        [1, 7],
        [2, 7],
        [3, 7],
      ],
      [[1, 7]],
    ],
    ['nothing for none', [], []],
  ])('%s', (_name, seen, expected) => {
    const changes = changePoints(seen.map(([timestampMs, n]) => ({ timestampMs, version: v(n) })));
    expect(changes.map((c) => [c.timestampMs, c.version[0]])).toEqual(expected);
  });

  it('a piece keeps the first and last sighting of each version of each group', () => {
    const uuid = (n: number): Uint8Array => Uint8Array.from(Buffer.alloc(16, n));
    const a = { type: 'company', key: 'acme', properties: { plan: 'free' } };
    const b = { type: 'company', key: 'acme', properties: { plan: 'pro' } };
    const kept = firstAndLast([observe(a, 3, uuid(1)), observe(a, 1, uuid(2)), observe(b, 2, uuid(3)), observe(a, 2, uuid(4)), observe(a, 5, uuid(5))]);
    expect(kept.map((o) => [o.timestampMs, o.propertiesJson])).toEqual([
      [1, '{"plan":"free"}'],
      [5, '{"plan":"free"}'],
      [2, '{"plan":"pro"}'],
    ]);
  });
});

describe('sessions', () => {
  it('starts a new session after more than the gap without an event', () => {
    const walk = new SessionWalk(30 * 60_000);
    const minutes = [0, 20, 50, 81, 111, 111];
    expect(minutes.map((m) => walk.next(m * 60_000) / 60_000)).toEqual([0, 0, 0, 81, 81, 81]);
  });

  it.each<[string, Record<string, unknown>, boolean, Record<string, unknown>, string[]]>([
    ['a UUIDv7 stays, unnoted', { $session_id: '0199047f-3587-7aca-97c4-d5093a6e9adc' }, true, { $session_id: '0199047f-3587-7aca-97c4-d5093a6e9adc' }, []],
    ['another id is noted and stays', { $session_id: 42 }, false, { $session_id: 42 }, ['session_id_not_uuidv7']],
    ['with --sessionize it moves to $source_session_id', { $session_id: 'abc' }, true, { $source_session_id: 'abc' }, ['session_id_not_uuidv7', 'source_session_id_kept']],
    ['no session id, nothing to say', { a: 1 }, true, { a: 1 }, []],
  ])('a source $session_id: %s', (_name, properties, sessionize, after, codes) => {
    const notes = reviewSessionId(properties, sessionize) ?? [];
    expect(properties).toEqual(after);
    expect(notes.map((n) => n.code)).toEqual(codes);
  });
});

describe('content options of identity links, sessions and times', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, string[], boolean[]]>([
    ['turning links off is a change', { identityLinks: true }, { identityLinks: false }, ['--no-identity-links: was identity links, now no identity links'], [false]],
    ['a read from before links is read with links', {}, { identityLinks: true }, [], []],
    ['computing sessions is a change', { sessionize: null }, { sessionize: 30 }, ['--sessionize: was no computed sessions, now sessions after 30 minutes without an event'], [false]],
    ['dropping --strict-time only lets rows in', { strictTime: true }, { strictTime: false }, ['--strict-time: was event_time required, now client or server time when event_time is missing'], [true]],
    ['an Amplitude read from before is strict', {}, { strictTime: false }, ['--strict-time: was event_time required, now client or server time when event_time is missing'], [true]],
    ['adding --strict-time is a change', { strictTime: false }, { strictTime: true }, ['--strict-time: was client or server time when event_time is missing, now event_time required'], [false]],
  ])('%s', (_name, before, after, lines, widens) => {
    const changes = contentChanges(before, after).filter((c) => ['identityLinks', 'sessionize', 'strictTime'].includes(c.option.key));
    expect(changes.map(describeChange)).toEqual(lines);
    expect(changes.map((c) => c.widens)).toEqual(widens);
  });
});
