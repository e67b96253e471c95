import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/events/canonical-json.js';
import { deriveUuid, normaliseUuid } from '../../src/events/stable-uuid.js';

describe('deriveUuid', () => {
  it('has the UUIDv7 layout with the timestamp in front', () => {
    const ms = Date.parse('2025-09-01T12:00:00.123Z');
    const uuid = deriveUuid('{"a":"1"}', ms);
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(uuid.replaceAll('-', '').slice(0, 12), 16)).toBe(ms);
  });

  it('is a pure function of identity and time (a documented, frozen rule)', () => {
    expect(deriveUuid('{"a":"1"}', 1_700_000_000_000)).toBe('018bcfe5-6800-73a5-8934-3fa866902690');
  });

  it('differs for different identities at the same millisecond', () => {
    expect(deriveUuid('{"a":"1"}', 1)).not.toBe(deriveUuid('{"a":"2"}', 1));
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and ignores undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[2,{"y":2,"z":1}]},"b":1}');
  });
});

describe('normaliseUuid', () => {
  it.each([
    ['0190A5B2-1C2D-7E3F-8A4B-5C6D7E8F9A0B', '0190a5b2-1c2d-7e3f-8a4b-5c6d7e8f9a0b'],
    ['0190a5b21c2d7e3f8a4b5c6d7e8f9a0b', '0190a5b2-1c2d-7e3f-8a4b-5c6d7e8f9a0b'],
    ['{0190a5b2-1c2d-7e3f-8a4b-5c6d7e8f9a0b}', '0190a5b2-1c2d-7e3f-8a4b-5c6d7e8f9a0b'],
    ['urn:uuid:0190a5b2-1c2d-7e3f-8a4b-5c6d7e8f9a0b', '0190a5b2-1c2d-7e3f-8a4b-5c6d7e8f9a0b'],
    ['00000000-0000-0000-0000-000000000000', undefined],
    ['ffffffff-ffff-ffff-ffff-ffffffffffff', undefined],
    ['0190a5b2-1c2d-7e3f-8a4b', undefined],
    ['zz90a5b2-1c2d-7e3f-8a4b-5c6d7e8f9a0b', undefined],
  ])('%s -> %s', (input, expected) => {
    expect(normaliseUuid(input)).toBe(expected);
  });
});
