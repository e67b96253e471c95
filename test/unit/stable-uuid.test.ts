import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/json/canonical-json.js';
import { deriveUuid, deriveUuidBytes, MIGRATE_NAMESPACE, normaliseUuid, uuidBytes, uuidText } from '../../src/events/stable-uuid.js';

/** The rule as first written (hex digits of SHA-1 laid out as text): the frozen reference. */
function referenceUuid(identity: string, timestampMs: number): string {
  const digest = hash('sha1', `${MIGRATE_NAMESPACE}\n${identity}`, 'hex');
  const time = Math.max(0, Math.floor(timestampMs)).toString(16).padStart(12, '0').slice(-12);
  const variant = '89ab'[parseInt(digest[3]!, 16) & 3]!;
  const hex = `${time}7${digest.slice(0, 3)}${variant}${digest.slice(4, 19)}`;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

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

  it("gives the reference rule's uuid for any identity and time", () => {
    const identities = ['', '{}', '{"a":"1"}', 'é😀\n\u0000', 'x'.repeat(5000)];
    const times = [0, 1, -5, 999.9, 1_700_000_000_000, 2 ** 48 - 1, 2 ** 48 + 7, Date.parse('2099-12-31T23:59:59.999Z')];
    for (const identity of identities) for (const ms of times) expect(deriveUuid(identity, ms)).toBe(referenceUuid(identity, ms));
    for (let i = 0; i < 2000; i++) {
      const identity = `{"n":${i},"r":"${Math.random()}"}`;
      const ms = Math.floor(Math.random() * 2e12);
      expect(deriveUuid(identity, ms)).toBe(referenceUuid(identity, ms));
    }
  });

  it('bytes and text are two forms of one uuid', () => {
    const bytes = deriveUuidBytes('{"a":"1"}', 1_700_000_000_000);
    expect(bytes).toHaveLength(16);
    expect(uuidText(bytes)).toBe('018bcfe5-6800-73a5-8934-3fa866902690');
    expect(uuidBytes('018bcfe5-6800-73a5-8934-3fa866902690').equals(bytes)).toBe(true);
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
