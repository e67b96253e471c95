import { describe, expect, it } from 'vitest';
import { createZoneConverter } from '../../src/events/time-zone.js';
import { formatTimestamp, parseIsoZulu, parseTimestamp } from '../../src/events/timestamp.js';

const ok: Array<[unknown, string, string?]> = [
  ['2024-03-05T10:20:30Z', '2024-03-05T10:20:30.000Z'],
  ['2024-03-05T10:20:30.123Z', '2024-03-05T10:20:30.123Z'],
  ['2024-03-05T10:20:30.123456Z', '2024-03-05T10:20:30.123456Z'],
  ['2024-03-05T10:20:30.1234Z', '2024-03-05T10:20:30.123400Z'],
  ['2024-03-05T10:20:30.123000Z', '2024-03-05T10:20:30.123Z'],
  ['2024-03-05T10:20:30.000001Z', '2024-03-05T10:20:30.000001Z'],
  // Digits past the microsecond are dropped (PostHog keeps microseconds), as past the millisecond they were.
  ['2024-03-05T10:20:30.123456789Z', '2024-03-05T10:20:30.123456Z'],
  [' 2024-03-05T10:20:30.999999+02:00', '2024-03-05T08:20:30.999999Z'],
  ['1709634030.123456', '2024-03-05T10:20:30.123456Z'],
  ['1709634030.1234567', '2024-03-05T10:20:30.123456Z'],
  // The float rounds up into the next millisecond: that millisecond, as earlier versions staged it (its uuid unchanged).
  ['1714557600.0009999', '2024-05-01T10:00:00.001Z'],
  ['1709634030123.456', '2024-03-05T10:20:30.123456Z'],
  [1709634030.123456, '2024-03-05T10:20:30.123456Z'],
  [1709634030123.5, '2024-03-05T10:20:30.123500Z'],
  ['2024-03-05 10:20:30.654321', '2024-03-05T09:20:30.654321Z', 'Europe/Paris'],
  ['2024-03-05 10:20:30+02:00', '2024-03-05T08:20:30.000Z'],
  ['2024-03-05T10:20:30-0530', '2024-03-05T15:50:30.000Z'],
  ['2024-03-05T10:20:30+01', '2024-03-05T09:20:30.000Z'],
  ['2024-03-05T10:20Z', '2024-03-05T10:20:00.000Z'],
  ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
  ['0050-06-01T12:00:00Z', '0050-06-01T12:00:00.000Z'],
  ['0000-02-29T01:02:03.004Z', '0000-02-29T01:02:03.004Z'],
  ['0099-12-31 23:59:59+00:00', '0099-12-31T23:59:59.000Z'],
  ['1709634030', '2024-03-05T10:20:30.000Z'],
  ['1709634030.5', '2024-03-05T10:20:30.500Z'],
  ['1709634030123', '2024-03-05T10:20:30.123Z'],
  [1709634030, '2024-03-05T10:20:30.000Z'],
  [1709634030123, '2024-03-05T10:20:30.123Z'],
  ['2024-03-05 10:20:30', '2024-03-05T09:20:30.000Z', 'Europe/Paris'],
  ['2024-07-05 10:20:30', '2024-07-05T08:20:30.000Z', 'Europe/Paris'],
  ['2024-11-03 01:30:00', '2024-11-03T05:30:00.000Z', 'America/New_York'],
  ['2024-03-05', '2024-03-05T00:00:00.000Z', 'UTC'],
];

const bad: Array<[unknown, string, string?]> = [
  ['2024-03-05 10:20:30', 'timestamp_without_zone'],
  ['yesterday', 'bad_timestamp'],
  ['2023-02-29T00:00:00Z', 'bad_timestamp'],
  ['2024-13-01T00:00:00Z', 'bad_timestamp'],
  ['2024-03-05T24:00:00Z', 'bad_timestamp'],
  ['2024-03-05T10:20:30+25:00', 'bad_timestamp'],
  ['1709634030123456', 'bad_timestamp'],
  [-5, 'bad_timestamp'],
  [true, 'bad_timestamp'],
  ['2024-03-10 02:30:00', 'nonexistent_local_time', 'America/New_York'],
];

describe('parseTimestamp', () => {
  it.each(ok)('%j -> %s (zone %s)', (input, expected, zone) => {
    const result = parseTimestamp(input, 'timestamp', zone ? createZoneConverter(zone) : undefined);
    // Every row with a zone here has a time without one: its instant comes from the zone, and
    // its wall-clock reading (as if UTC) is given with it.
    const ms = Date.parse(expected);
    const subMs = expected.length > 24 ? { subMsUs: Number(expected.slice(23, 26)) } : {};
    expect(result).toEqual(zone !== undefined ? { ok: true, ms, ...subMs, wallMs: Date.parse(`${(input as string).replace(' ', 'T')}Z`) } : { ok: true, ms, ...subMs });
    if (result.ok) expect(formatTimestamp(result.ms, result.subMsUs)).toBe(expected);
  });

  it.each(bad)('%j is rejected as %s (zone %s)', (input, reason, zone) => {
    const result = parseTimestamp(input, 'ts', zone ? createZoneConverter(zone) : undefined);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toMatchObject({ reason, field: 'ts' });
  });

  it('takes the earlier instant in a repeated hour', () => {
    const zone = createZoneConverter('America/New_York');
    const result = parseTimestamp('2024-11-03 01:30:00', 't', zone);
    expect(result).toEqual({ ok: true, ms: Date.parse('2024-11-03T05:30:00Z'), wallMs: Date.parse('2024-11-03T01:30:00Z') });
  });

  it('refuses unknown zone names', () => {
    expect(() => createZoneConverter('Mars/Olympus')).toThrow(RangeError);
  });
});

describe('parseIsoZulu (the fast path)', () => {
  const general = (text: string) => parseTimestamp(` ${text}`, 'timestamp');

  it.each([
    '2024-01-01T00:00:00Z',
    '2024-01-01T00:00:00.5Z',
    '2024-01-01T00:00:00.123Z',
    '2024-01-01T00:00:00.123456789Z',
    '2024-02-29T23:59:59.999Z',
    '1969-12-31T23:59:59.999Z',
    '2000-02-29T12:00:00,250Z',
  ])('%s: the same time as the general parser', (text) => {
    const ms = parseIsoZulu(text);
    expect(ms).toBeDefined();
    expect(general(text)).toEqual(parseTimestamp(text, 'timestamp'));
    expect(general(text)).toMatchObject({ ok: true, ms });
  });

  it.each([
    '2023-02-29T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-01-32T00:00:00Z',
    '2024-01-01T24:00:00Z',
    '2024-01-01T00:60:00Z',
    '2024-01-01T00:00:60Z',
    '2024-01-01 00:00:00Z',
    '2024-01-01T00:00:00.Z',
    '2024-01-01T00:00:00.1aZ',
    '2024-01-01T00:00:00z',
    '2024-01-01T00:00:00+00:00',
    '2024-1-01T00:00:00Z',
    '２０２４-01-01T00:00:00Z',
  ])('%s: left to the general parser', (text) => {
    expect(parseIsoZulu(text)).toBeUndefined();
  });

  it('agrees with the general parser on random near-misses', () => {
    const alphabet = '0123456789-T:.Z ,';
    const base = '2024-03-15T10:20:30.456Z';
    for (let i = 0; i < 20000; i++) {
      const chars = [...base];
      for (let k = 0; k < 1 + (i % 3); k++) chars[Math.floor(Math.random() * chars.length)] = alphabet[Math.floor(Math.random() * alphabet.length)]!;
      const text = chars.join('');
      const ms = parseIsoZulu(text);
      if (ms !== undefined) expect(general(text), text).toEqual({ ok: true, ms });
    }
  });
});
